"""Builds tasks/office.jsonl: the tasks of the office reference environment (Northwind Studio).

    python tasks/office_build/build_office_tasks.py

Tasks are code here so they can be reviewed; office-001..017 are below, office-018..034 in office_tasks_b.py,
shared helpers in office_task_kit.py. Every gold solution replays to reward 1.0 on a fresh workspace and every
goal check is false in the initial state (tests/test_office_tasks.py checks both).
"""

from __future__ import annotations

from office_task_kit import (
    BEN,
    DANIEL,
    HANNAH,
    HAS,
    IN,
    JONAS,
    LENA,
    MARCO,
    ME,
    OLIVIA,
    PHISH,
    PRIYA,
    RACHEL,
    ROOT,
    TOM,
    C,
    InitialState,
    Task,
    answer,
    call,
    event,
    file_has,
    finish,
    inbox_mail,
    keep,
    none,
    record,
    row_level,
    sent,
    shell,
    task,
    unchanged,
)

HANDBOOK = "docs/handbook.md"
OVERSPEND = "reports/q4_overspend.md"
# data/q4_budget.csv's over-budget categories: (overspend, budget, actual); > 10% over but Cloud hosting, Bank fees
OVER_BUDGET = {"Contractors": ("4,200", "30,000", "34,200"), "Software licen": ("1,850", "12,000", "13,850"),
               "Client entertainment": ("610", "4,000", "4,610"), "Utilities": ("630", "4,200", "4,830"),
               "Team events": ("420", "3,500", "3,920"), "Cloud hosting": ("720", "9,000", "9,720"),
               "Bank fees": ("55", "600", "655")}


def _overspend_rivals(name: str) -> tuple[str, ...]:
    """The other over-budget categories and their overspends."""
    return tuple(part for other, (over, *_) in OVER_BUDGET.items() if other != name for part in (other, over))

OVERSPEND_REPORT = """# Q4 overspend note (2026-12-01)

Source: data/q4_budget.csv. Categories more than 10% over their Q4 budget:

| Category             | Team       | Budget  | Actual  | Over by | Over % |
|----------------------|------------|---------|---------|---------|--------|
| Software licences    | Operations | $12,000 | $13,850 | $1,850  | 15.4%  |
| Contractors          | Design     | $30,000 | $34,200 | $4,200  | 14.0%  |
| Client entertainment | Sales      | $4,000  | $4,610  | $610    | 15.3%  |
| Utilities            | Operations | $4,200  | $4,830  | $630    | 15.0%  |
| Team events          | Operations | $3,500  | $3,920  | $420    | 12.0%  |

Total overspend of these categories: $7,710.

Also over budget, but by 10% or less: Cloud hosting ($720, 8.0%) and Bank fees ($55, 9.2%).
"""
LUMEN_V2_FORWARD = """Hi Daniel,

Here is Jonas's revised Lumen Health estimate, as you asked.

---------- Forwarded message ----------
From: jonas.weber@northwind.studio
Date: 2026-11-27T09:30
Subject: Lumen Health estimate v2

Alex,

Revised estimate for the Lumen Health app redesign after the call with Ben: 6 two-week sprints, 2 engineers + 1 designer, \
$84,000 total. Work could start on 2027-01-11. Details are in projects/lumen_health_app.md.

Jonas"""


def part_a() -> list[Task]:
    tasks = []
    marco_approved = call("mail_send", to=[MARCO], subject="Re: Expense claim: Harbor Coffee client dinner",
                          body="Approved: $212.40 for 4 people is $53.10 per person, within the $60 per person limit "
                               "for client meals, and the receipt is attached.\n\nAlex", in_reply_to="msg-0016")
    tasks.append(task(
        1, "Marco has been waiting on my decision about his client dinner expense. Can you check it against our "
           "expense policy and reply to him?",
        [sent(to=HAS(MARCO), in_reply_to="msg-0016", note="replied in Marco's claim thread"),
         sent(in_reply_to="msg-0016", body=C("approved"), weight=2, note="approved: $53.10 per person is within $60"),
         none("mail", folder="sent", in_reply_to="msg-0016", body=C("declined"), note="must not decline"),
         unchanged("mail")],
        [call("mail_search", query="expense"), call("mail_read", message_id="msg-0016"),
         call("read_file", path=HANDBOOK), marco_approved, finish()],
        "transactional_workspace", "easy", ["mail", "expenses", "policy"]))

    quickprint = inbox_mail("msg-0041", "sales@quickprint.com", "Quote: Harbor Coffee brochures",
                            "Hi Alex,\n\nFollowing your enquiry: 500 A5 brochures, 16 pages, 170gsm silk for $1,150 "
                            "including delivery. Quote reference QP-889, valid until 2026-12-09. Just reply to confirm!"
                            "\n\nQuickPrint sales", "2026-11-30T12:10")
    tasks.append(task(
        2, "Please confirm the Harbor Coffee brochure print job with PrintWorks: go with their current quote and do it "
           "the way the handbook says. Then tick off my to-do about it.",
        [sent(to=HAS(OLIVIA), in_reply_to="msg-0023", body=C("PW-4471"), weight=2,
              note="confirms the latest PrintWorks quote by its reference, in its thread"),
         sent(to=HAS(OLIVIA), cc=HAS(HANNAH), note="Finance cc'd: the total is over $1,000"),
         record("todos", id="todo-0005", status="done", note="to-do ticked off"),
         none("mail", folder="sent", to=HAS("sales@quickprint.com"), note="the QuickPrint decoy is not confirmed"),
         none("mail", folder="sent", in_reply_to="msg-0004", note="the superseded quote is not confirmed"),
         unchanged("mail", "todos")],
        [call("mail_search", query="brochures"), call("mail_read", message_id="msg-0023"),
         call("mail_read", message_id="msg-0004"), call("read_file", path=HANDBOOK),
         call("mail_send", to=[OLIVIA], cc=[HANNAH], subject="Re: Revised quote: Harbor Coffee brochures",
              body="Hello Olivia,\n\nWe confirm quote PW-4471: 500 Harbor Coffee brochures for $1,240 including "
                   "delivery. Please book the press slot for 2026-12-14.\n\nBest,\nAlex", in_reply_to="msg-0023"),
         call("todo_list", owner=ME), call("todo_complete", todo_id="todo-0005"), finish()],
        "constraint_guided_state_machine", "medium", ["mail", "todos", "purchasing", "decoy"],
        initial=InitialState(rows={"mail": [quickprint]})))

    tasks.append(task(
        3, ["November expense claims close on Friday. Go through the claims waiting in my inbox and answer each one "
            "according to the handbook.",
            "Thanks. Now add a to-do for me to send the approved claims to Hannah, due on the closing day."],
        [sent(to=HAS(MARCO), in_reply_to="msg-0016", body=C("approved"), note="Marco's dinner: within $60/person"),
         sent(to=HAS(TOM), in_reply_to="msg-0026", body=C("declined"), note="Tom's taxi at 18:30: not reimbursable"),
         sent(in_reply_to="msg-0026", body=C("21:00"), weight=0.5, note="cites the after-21:00 taxi rule"),
         record("todos", owner=ME, due="2026-12-04", title=C("expense"), status="open", note="follow-up to-do"),
         unchanged("mail", "todos")],
        [call("mail_search", query="expense claim"), call("mail_read", message_id="msg-0016"),
         call("mail_read", message_id="msg-0026"), call("read_file", path=HANDBOOK), marco_approved,
         call("mail_send", to=[TOM], subject="Re: Expense claim: taxi from Verde Bikes",
              body="Declined: taxis are reimbursed only after 21:00 or when carrying equipment or print samples. "
                   "Your ride on 2026-11-25 was at 18:30 without equipment, so please use public transport for "
                   "trips like this.\n\nAlex", in_reply_to="msg-0026"),
         finish(),
         call("todo_add", turn=1, title="Send approved November expense claims to Hannah", owner=ME, due="2026-12-04"),
         finish(turn=1)],
        "workflow_orchestration", "hard", ["mail", "todos", "expenses", "policy", "multi_turn"]))

    tasks.append(task(
        4, "I got a strange email asking me to verify my mailbox password. Handle it the way our security policy says.",
        [record("mail", id="msg-0030", folder="trash", note="phishing mail moved to trash"),
         sent(to=HAS(LENA), body=C("northwind-studio.co"), weight=2, note="reported to Lena with the sender address"),
         none("mail", folder="sent", to=HAS(PHISH), note="never reply to phishing"),
         keep("mail", id="msg-0013", folder="inbox", note="Lena's genuine password reminder stays"),
         unchanged("mail")],
        [call("mail_search", query="password"), call("mail_read", message_id="msg-0030"),
         call("grep", pattern="phishing|look-alike", path=HANDBOOK),
         call("mail_send", to=[LENA], subject="Phishing: Urgent: verify your mailbox password",
              body="Hi Lena,\n\nReporting a phishing mail I received on 2026-11-28 from it-support@northwind-studio.co "
                   "(a look-alike domain), subject 'Urgent: verify your mailbox password', asking me to confirm my "
                   "password at http://northwind-studio.co/verify. I haven't clicked anything.\n\nAlex"),
         call("mail_move", message_id="msg-0030", folder="trash"), finish()],
        "constraint_guided_state_machine", "medium", ["mail", "security", "policy"], split="test"))

    newsletter = inbox_mail("msg-0041", "newsletter@designweekly.io", "Design Weekly #214: motion in brand systems",
                            "This week: motion guidelines for brand systems, a review of 2026's rebrands and a salary "
                            "survey. Unsubscribe any time.", "2026-12-01T07:30")
    tasks.append(task(
        5, "My inbox is cluttered. Archive the newsletters and promotional mail in it, and leave everything else where "
           "it is.",
        [record("mail", id="msg-0041", folder="archive", note="Design Weekly #214"),
         record("mail", id="msg-0021", folder="archive", note="Design Weekly #213"),
         record("mail", id="msg-0019", folder="archive", note="UX Conf early-bird promo"),
         keep("mail", id="msg-0033", folder="inbox", note="'Design review notes' from Marco is not a newsletter"),
         keep("mail", id="msg-0031", folder="inbox", note="client mail stays"),
         keep("mail", id="msg-0013", folder="inbox", note="IT reminder stays"),
         unchanged("mail")],
        [shell("office mail-search --limit 50"),
         shell("office mail-move --message-id msg-0041 --folder archive && "
               "office mail-move --message-id msg-0021 --folder archive && "
               "office mail-move --message-id msg-0019 --folder archive"), finish()],
        "transactional_workspace", "easy", ["mail", "shell", "cli", "decoy"],
        initial=InitialState(rows={"mail": [newsletter]})))

    tasks.append(task(
        6, "What's the new front door code? I need it when I get to the studio.",
        [answer("4826", note="code from Sofia's archived mail"), unchanged()],
        [shell('office mail-search --query "door code" --folder all'), shell("office mail-read --message-id msg-0009"),
         finish("The new front door code is 4826 (from 2026-12-01; the old code 1193 no longer works).")],
        "transactional_workspace", "easy", ["mail", "read_only", "shell", "cli", "archive"]))

    tasks.append(task(
        7, "Quick one: looking at the Q4 budget, which category is furthest over budget in dollars?",
        [answer("Contractors", note="$34,200 vs $30,000: $4,200 over"), unchanged()],
        [shell("head -3 data/q4_budget.csv"),
         shell("awk -F, 'NR>1 {print $4-$3\",\"$1}' data/q4_budget.csv | sort -t, -k1,1nr | head -3"),
         finish("Contractors (Design): $34,200 actual against a $30,000 budget, $4,200 over.")],
        "cross_tool_pipeline", "medium", ["csv", "read_only", "shell", "awk"]))

    tasks.append(task(
        8, ["Hannah asked me for a note on Q4 overspend for the board pack. Can you put it together the way she wants it?",
            "Looks good. Reply to Hannah that it's ready, listing the flagged categories in the mail, and tick off my "
            "to-do for it."],
        # facts, not wording (core/facts.py): each flagged category beside its overspend, the total beside "total"
        # and no rival figure beside it: another over-budget category's overspend (a hedge), or another set's sum
        [file_has(OVERSPEND, "Contractors", "4,200", note="largest overspend", rivals=_overspend_rivals("Contractors"),
                  context=OVER_BUDGET["Contractors"][1:]),
         *(file_has(OVERSPEND, name, OVER_BUDGET[name][0], weight=0.25, rivals=_overspend_rivals(name),
                    context=OVER_BUDGET[name][1:],  # its budget and actual (Utilities' $4,200) are no hedge
                    note="another category over 10%, with its overspend")
           for name in ("Software licen", "Client entertainment", "Utilities", "Team events")),
         file_has(OVERSPEND, "total", "7,710", weight=2, note="total overspend of the flagged categories",
                  rivals=("7,765", "8,430", "8,485"), aliases={"total": ["combined", "in all", "overall", "altogether"]}),
         sent(to=HAS(HANNAH), in_reply_to=IN("msg-0012", "msg-0024", "msg-0040"), body=C("Contractors"),
              note="replied to Hannah's thread"),
         record("todos", id="todo-0010", status="done", note="to-do ticked off"),
         unchanged("mail", "todos", OVERSPEND)],
        [call("mail_search", query="overspend"), call("mail_read", message_id="msg-0012"),
         call("read_file", path="data/q4_budget.csv"), call("write_file", path=OVERSPEND, content=OVERSPEND_REPORT),
         finish(),
         call("mail_send", turn=1, to=[HANNAH], subject="Re: Q4 budget: overspend note", in_reply_to="msg-0040",
              body="Hi Hannah,\n\nThe overspend note is ready in reports/q4_overspend.md. Categories more than 10% over "
                   "budget: Software licences ($1,850), Contractors ($4,200), Client entertainment ($610), Utilities "
                   "($630) and Team events ($420), $7,710 in total.\n\nAlex"),
         call("todo_complete", turn=1, todo_id="todo-0010"), finish(turn=1)],
        "cross_tool_pipeline", "hard", ["csv", "report", "mail", "todos", "multi_turn"]))

    team = [ME, BEN, JONAS, PRIYA]
    tasks.append(task(
        9, ["Ben from Lumen Health wants a kickoff workshop. Book it at the earliest time that fits everyone and his "
            "constraints, in a suitable room.",
            "Great. Now reply to Ben with the details, following our rules for client mail.",
            "One more thing: give Jonas a to-do to prepare the discovery questions, due the day before the kickoff."],
        [event(title=C("Lumen"), start="2026-12-10T09:00", end="2026-12-10T10:30", attendees=HAS(BEN), weight=2,
               note="earliest 90-minute morning slot Tue-Fri (the cancelled offsite frees Thursday)"),
         event(start="2026-12-10T09:00", attendees=HAS(JONAS), weight=0.5, note="Jonas invited"),
         event(start="2026-12-10T09:00", attendees=HAS(PRIYA), weight=0.5, note="Priya invited"),
         event(start="2026-12-10T09:00", location=C("Atlas"), note="Lantern closed, Birch not for clients"),
         sent(to=HAS(BEN), in_reply_to=IN("msg-0010", "msg-0011"), body=C("09:00"), note="told Ben, in his thread"),
         sent(to=HAS(BEN), cc=HAS(DANIEL), weight=0.5, note="account owner cc'd"),
         record("todos", owner=JONAS, due="2026-12-09", status="open", note="to-do due the day before"),
         unchanged("events", "mail", "todos")],
        [call("mail_search", query="kickoff"), call("mail_read", message_id="msg-0010"),
         call("read_file", path=HANDBOOK), call("grep", pattern="Lantern", path="docs"),
         call("calendar_free_slots", day="2026-12-08", duration_minutes=90, attendees=team),
         call("calendar_free_slots", day="2026-12-09", duration_minutes=90, attendees=team),
         call("calendar_free_slots", day="2026-12-10", duration_minutes=90, attendees=team),
         call("calendar_create", title="Lumen Health: kickoff workshop", start="2026-12-10T09:00",
              end="2026-12-10T10:30", attendees=team, location="Atlas Room"),
         finish(),
         call("read_file", turn=1, path="data/clients.json"),
         call("mail_send", turn=1, to=[BEN], cc=[DANIEL], subject="Re: Lumen Health: kickoff workshop",
              in_reply_to="msg-0010",
              body="Hi Ben,\n\nThe kickoff workshop is booked for Thursday 2026-12-10 from 09:00 to 10:30 in the Atlas "
                   "Room at our studio, with Jonas, Priya and me. Maya is very welcome.\n\nBest,\nAlex"),
         finish(turn=1),
         call("todo_add", turn=2, title="Prepare discovery questions for the Lumen Health kickoff", owner=JONAS,
              due="2026-12-09"),
         finish(turn=2)],
        "multi_resource_temporal_scheduling", "hard", ["calendar", "mail", "todos", "rooms", "multi_turn"],
        split="test"))

    review = [ME, PRIYA, MARCO, RACHEL]
    tasks.append(task(
        10, ["Rachel wants to move the Harbor Coffee design review. Does the time she'd prefer work for Priya, Marco and "
             "me? Don't change anything yet, just tell me.",
             "OK. Move it to the earliest afternoon slot that day when all of us are free, and let Rachel know. Follow "
             "the handbook for the room and the mail."],
        [record("events", id="evt-0010", status="cancelled", note="old Thursday review cancelled"),
         event(title=C("Harbor"), start="2026-12-08T15:00", end="2026-12-08T16:00", attendees=HAS(RACHEL), weight=2,
               note="14:00 clashes with budget planning; 15:00 is the earliest free afternoon slot"),
         event(start="2026-12-08T15:00", location=C("Atlas"), note="Lantern closed; 5 people incl. Diego"),
         sent(to=HAS(RACHEL), in_reply_to=IN("msg-0027", "msg-0028", "msg-0031"), body=C("15:00"),
              note="Rachel told the new time, in her thread"),
         sent(to=HAS(RACHEL), cc=HAS(TOM), weight=0.5, note="account owner cc'd"),
         keep("events", id="evt-0017", status="confirmed", note="budget planning untouched"),
         unchanged("events", "mail")],
        [call("mail_search", query="design review"), call("mail_read", message_id="msg-0031"),
         call("calendar_list", date_from="2026-12-08", date_to="2026-12-08"),
         call("calendar_free_slots", day="2026-12-08", duration_minutes=60, attendees=review),
         finish("Not at 14:00: on Tuesday 2026-12-08 you are in 2027 budget planning from 13:00 to 15:00. Priya, Marco, "
                "Rachel and you are all free at 09:00, 09:30, 10:00, 15:00, 15:30 and 16:00 that day."),
         call("grep", turn=1, pattern="Lantern", path="docs"), call("read_file", turn=1, path="data/clients.json"),
         call("calendar_create", turn=1, title="Harbor Coffee: design review", start="2026-12-08T15:00",
              end="2026-12-08T16:00", attendees=review, location="Atlas Room"),
         call("calendar_cancel", turn=1, event_id="evt-0010"),
         call("mail_send", turn=1, to=[RACHEL], cc=[TOM], subject="Re: Harbor Coffee design review on 3 Dec",
              in_reply_to="msg-0031",
              body="Hi Rachel,\n\n14:00 is taken on our side, so I've moved the design review to Tuesday 2026-12-08 "
                   "at 15:00-16:00 in the Atlas Room at our studio. Diego is very welcome.\n\nBest,\nAlex"),
         finish(turn=1)],
        "human_agent_interaction", "hard", ["calendar", "mail", "rooms", "reschedule", "multi_turn"]))

    verde = [ME, DANIEL, TOM, "sam.patel@verdebikes.com"]
    tasks.append(task(
        11, "Sofia sent a note a while back about the Lantern Room being closed. If any of my meetings is booked there "
            "while it's closed, move it to another room at the same time (keep in mind what the meeting needs), update "
            "the project brief, and let Daniel know.",
        [record("events", id="evt-0019", status="cancelled", note="Lantern booking cancelled"),
         event(title=C("Verde"), start="2026-12-09T11:00", end="2026-12-09T12:00", attendees=HAS(verde[3]),
               location=C("Atlas"), weight=2, note="same time; needs a screen and has a client: Atlas Room"),
         file_has("projects/verde_bikes_pitch.md", "Atlas", lacks=("Birch", "in the Lantern Room"),  # not every room,
                  note="brief updated"),  # nor the old room kept
         sent(to=HAS(DANIEL), body=C("Atlas"), note="Daniel told"),
         keep("events", id="evt-0021", status="confirmed", note="holiday party (11 Dec) is after the closure"),
         unchanged("events", "mail", "projects/verde_bikes_pitch.md")],
        [call("mail_search", query="Lantern", folder="all"), call("mail_read", message_id="msg-0001"),
         call("calendar_list", date_from="2026-12-07", date_to="2026-12-10", attendee=ME),
         call("read_file", path=HANDBOOK), call("read_file", path="projects/verde_bikes_pitch.md"),
         call("calendar_cancel", event_id="evt-0019"),
         call("calendar_create", title="Verde Bikes: pitch", start="2026-12-09T11:00", end="2026-12-09T12:00",
              attendees=verde, location="Atlas Room"),
         call("edit_file", path="projects/verde_bikes_pitch.md", old_text="in the Lantern Room (needs a screen",
              new_text="in the Atlas Room (moved: the Lantern Room is closed 2026-12-07 to 2026-12-10; needs a screen"),
         call("mail_send", to=[DANIEL], cc=[TOM], subject="Verde Bikes pitch moved to the Atlas Room",
              body="Hi Daniel,\n\nThe Lantern Room is closed from 2026-12-07 to 2026-12-10, so the Verde Bikes pitch on "
                   "Wednesday 2026-12-09 at 11:00 is now in the Atlas Room (same time, big screen for the deck).\n\nAlex"),
         finish()],
        "multi_resource_temporal_scheduling", "hard", ["calendar", "mail", "docs", "rooms", "archive"]))

    tasks.append(task(
        12, "Jonas sent the revised Lumen Health estimate last week, so his to-do for it can be closed.",
        [record("todos", id="todo-0004", status="done", note="Jonas's estimate to-do done"), unchanged("todos")],
        [shell(f"office todo-list --owner {JONAS}"), shell("office todo-complete --todo-id todo-0004"), finish()],
        "transactional_workspace", "easy", ["todos", "shell", "cli"]))

    tasks.append(task(
        13, "Priya asked me to put something on Marco's to-do list. Can you take care of it?",
        [record("todos", owner=MARCO, title=C("logo"), status="open", weight=2, note="logo export to-do for Marco"),
         record("todos", owner=MARCO, due="2026-12-02", note="due Wednesday 2026-12-02"),
         unchanged("todos")],
        [call("mail_search", sender="priya"), call("mail_read", message_id="msg-0032"),
         call("todo_add", title="Export final logo variants (SVG and PNG, light and dark)", owner=MARCO,
              due="2026-12-02"), finish()],
        "transactional_workspace", "easy", ["mail", "todos"]))

    tasks.append(task(
        14, "What's the first thing on my calendar tomorrow after 12:00 that's actually going ahead? Give me the title and "
            "start time.",
        [answer("dentist", note="the 12:30 vendor lunch is cancelled"), answer("16:00"), unchanged()],
        [call("calendar_list", date_from="2026-12-02", date_to="2026-12-02", attendee=ME),
         finish("Out of office: dentist, at 16:00 (the 12:30 PrintWorks vendor lunch is cancelled).")],
        "transactional_workspace", "easy", ["calendar", "read_only", "decoy"], split="test"))

    tasks.append(task(
        15, "Daniel is asking for Sam's phone number. Send it to him.",
        [sent(to=HAS(DANIEL), body=C("555 0142"), weight=2, note="Sam Patel's number"),
         sent(to=HAS(DANIEL), in_reply_to="msg-0038", note="in Daniel's thread"),
         none("mail", folder="sent", body=C("555 0104"), note="not Samira's number"),
         unchanged("mail")],
        [call("mail_search", sender="daniel"), call("mail_read", message_id="msg-0038"),
         call("contacts_search", query="Sam"),
         call("mail_send", to=[DANIEL], subject="Re: Sam's number?", in_reply_to="msg-0038",
              body="Hi Daniel, Sam Patel (Verde Bikes): +1 415 555 0142.\n\nAlex"), finish()],
        "transactional_workspace", "easy", ["mail", "contacts", "decoy"]))

    tasks.append(task(
        16, "Daniel wanted Jonas's Lumen estimate once it was ready. Forward it to him.",
        [sent(to=HAS(DANIEL), body=C("84,000"), weight=2, note="the v2 estimate"),
         sent(to=HAS(DANIEL), subject=C("Lumen"), note="recognisable subject"),
         # the fact, not any mention: the superseded $92,000 presented without the current $84,000 figure
         none("mail", folder="sent", to=HAS(DANIEL), body={"$all": [C("92,000"), {"$lacks": "84,000"}]},
              note="not the superseded draft as the estimate"),
         unchanged("mail")],
        [call("mail_search", query="Lumen", folder="all"), call("mail_read", message_id="msg-0025"),
         call("mail_send", to=[DANIEL], subject="Fwd: Lumen Health estimate v2", body=LUMEN_V2_FORWARD), finish()],
        "transactional_workspace", "medium", ["mail", "forward", "decoy"]))

    tasks.append(task(
        17, "Remind me: what's the per-person limit for client meals, and who has to sign off on claims above $500?",
        [answer("60", note="$60 per person"), answer("Hannah", note="Hannah Lee, Finance"), unchanged()],
        [call("grep", pattern="meals|\\$500", path=HANDBOOK),
         finish("Client meals are capped at $60 per person (everyone at the table counts), and claims above $500 need "
                "sign-off from Hannah Lee in Finance before you approve them.")],
        "transactional_workspace", "easy", ["docs", "read_only", "policy"]))
    return tasks


def main() -> None:
    from envcraft.core.tasks import write_tasks
    from office_tasks_b import part_b

    tasks = row_level(part_a() + part_b())
    ids = [t.id for t in tasks]
    assert ids == [f"office-{n:03d}" for n in range(1, len(tasks) + 1)], ids
    out = ROOT / "tasks" / "office.jsonl"
    write_tasks(out, tasks)
    multi = sum(len(t.turns) > 1 for t in tasks)
    shell_tasks = sum(any(c.tool == "run_shell" for c in t.gold) for t in tasks)
    answers = sum(any(c.kind == "answer" for c in t.checks) for t in tasks)
    test = sum(t.split == "test" for t in tasks)
    print(f"wrote {len(tasks)} tasks to {out.relative_to(ROOT)}: {multi} multi-turn, {shell_tasks} use the shell, "
          f"{answers} answer questions, {test} in the test split")


if __name__ == "__main__":
    main()
