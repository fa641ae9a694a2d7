"""The `forbids` check kind: no related row exists whose `match` fields equal ours and whose `field` is among
`values` (open repair orders block a close; a pending line blocks receiving an ASN).

    check: {kind: forbids, entity: repair_order, match: {vehicle_id: vehicle_id}, field: status, values: [open]}

The same check as requires (generator/rules/requires.py), the other way round: everything is shared but the
app.py helper (present_related), the category, and that a seed row is not given moves toward a related row.
"""

from __future__ import annotations

from envcraft.generator.rules.requires import Requires


class Forbids(Requires):
    name = "forbids"
    category = "state_guard"
    wanted = False
    matches_related = False
    blocked_by_related = True


KIND = Forbids()
