"""Office tasks office-018..034 (see build_office_tasks.py, which writes tasks/office.jsonl)."""

from __future__ import annotations

from office_task_kit import (
    AISHA,
    DANIEL,
    HANNAH,
    HAS,
    IN,
    JONAS,
    LENA,
    MARCO,
    ME,
    OLIVIA,
    PRIYA,
    RACHEL,
    SAMIRA,
    SOFIA,
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
    none,
    record,
    sent,
    shell,
    task,
    unchanged,
)

HANDBOOK = "docs/handbook.md"
ONCALL = "reports/oncall_contacts.md"
ONCALL_ENGINEERING = """# On-call contacts

| Name          | Email                           | Phone       |
|---------------|---------------------------------|-------------|
| Jonas Weber   | jonas.weber@northwind.studio    | +1 555 0103 |
| Samira Haddad | samira.haddad@northwind.studio  | +1 555 0104 |
| Aisha Rahman  | aisha.rahman@northwind.studio   | +1 555 0105 |
"""
NOT_ON_CALL = tuple(f"{name}@northwind.studio" for name in (
    "alex.morgan", "priya.shah", "marco.bellini", "daniel.okafor", "tom.brennan", "hannah.lee", "sofia.marquez",
)) + ("rachel.kim@", "ben.carter@", "sam.patel@", "olivia.grant@")
ONCALL_WITH_LENA = ONCALL_ENGINEERING + "| Lena Fischer  | lena.fischer@northwind.studio   | +1 555 0110 |\n"
RSVPS = """name,email,attending,dietary
Alex Morgan,alex.morgan@northwind.studio,yes,
Priya Shah,priya.shah@northwind.studio,yes,vegetarian
Marco Bellini,marco.bellini@northwind.studio,yes,vegetarian
Jonas Weber,jonas.weber@northwind.studio,yes,gluten-free
Samira Haddad,samira.haddad@northwind.studio,yes,vegan
Aisha Rahman,aisha.rahman@northwind.studio,yes,
Daniel Okafor,daniel.okafor@northwind.studio,yes,
Tom Brennan,tom.brennan@northwind.studio,no,
Hannah Lee,hannah.lee@northwind.studio,yes,
Sofia Marquez,sofia.marquez@northwind.studio,yes,
Lena Fischer,lena.fischer@northwind.studio,no,nut allergy
"""
CLIENTS_RENEWING = ("python3 -c \"import json; [print(c['client'], c['renewal_date'], c['contract_value_usd']) "
                    "for c in json.load(open('data/clients.json')) if c['status'] == 'active' "
                    "and (c['renewal_date'] or '9') < '2027-02-01']\"")


def part_b() -> list[Task]:
    tasks = []
    tasks.append(task(
        18, "Turn the action items from the 24 November studio meeting into to-dos for their owners. Some may already be "
            "on the list; don't add those twice.",
        [record("todos", owner=SAMIRA, due="2026-12-09", title=C("staging"), status="open", note="Samira's item"),
         record("todos", owner=TOM, due="2026-12-04", title=C("Verde"), status="open", note="Tom's item"),
         record("todos", owner=SOFIA, due="2026-12-03", title=C("catering"), status="open", note="Sofia's item"),
         record("todos", title=C("logo files"), count=1, role="guard", note="Priya's item already existed"),
         unchanged("todos")],
        [call("read_file", path="docs/meeting_notes/2026-11-24.md"), call("todo_list", status="all"),
         call("contacts_search", query="Northwind"),
         call("todo_add", title="Set up the staging server for the Lumen prototype", owner=SAMIRA, due="2026-12-09"),
         call("todo_add", title="Collect Verde Bikes ride-share stats for the pitch", owner=TOM, due="2026-12-04"),
         call("todo_add", title="Confirm holiday party catering with Green Fork", owner=SOFIA, due="2026-12-03"),
         finish()],
        "workflow_orchestration", "medium", ["docs", "todos", "dedupe"]))

    tasks.append(task(
        19, "Sofia's away for a few days this week. Who's covering deliveries and the studio phone while she's out?",
        [answer("Lena", note="Lena Fischer, per the 2026-11-30 stand-up notes"), unchanged()],
        [shell("grep -ri 'deliveries' docs"),
         finish("Lena Fischer covers deliveries and the studio phone while Sofia is away (2026-12-02 to 2026-12-04).")],
        "transactional_workspace", "easy", ["docs", "read_only", "shell", "grep"], split="test"))

    tasks.append(task(
        20, "Daniel wants to plan renewal conversations. Email him the active clients whose contracts renew before "
            "February 2027, with the renewal date and contract value of each.",
        [sent(to=HAS(DANIEL), body=C("Oakline"), note="Oakline Furniture renews 2026-12-31"),
         sent(to=HAS(DANIEL), body=C("Kite"), note="Kite Travel renews 2027-01-15"),
         none("mail", folder="sent", body=C("Pine"), note="Pine & Co Legal has churned"),
         none("mail", folder="sent", body=C("Saltmarsh"), note="Saltmarsh renews in June"),
         unchanged("mail")],
        [shell("head -20 data/clients.json"), shell(CLIENTS_RENEWING),
         call("mail_send", to=[DANIEL], subject="Active clients renewing before February 2027",
              body="Hi Daniel,\n\nActive clients whose contracts renew before 2027-02-01:\n"
                   "- Oakline Furniture: renews 2026-12-31, $26,500\n- Kite Travel: renews 2027-01-15, $31,000\n\nAlex"),
         finish()],
        "cross_tool_pipeline", "medium", ["json", "mail", "shell", "python", "decoy"]))

    tasks.append(task(
        21, "What are Engineering's total Q4 budget and actual spend so far? Give me plain numbers without currency "
            "symbols or separators (like 12345).",
        [answer("17000", note="Engineering budget"), answer("13070", note="Engineering actual"), unchanged()],
        [shell("awk -F, '$2 == \"Engineering\" {b += $3; a += $4} END {print b, a}' data/q4_budget.csv"),
         finish("Engineering Q4: budget 17000, actual 13070.")],
        "cross_tool_pipeline", "medium", ["csv", "read_only", "shell", "awk"], split="test"))

    tasks.append(task(
        22, ["Set up a 30-minute 'Expense review' with Hannah tomorrow, at the first time we're both free.",
             "Hannah says half an hour won't be enough. Make it a full hour, starting at the same time."],
        [event(title=C("Expense review"), start="2026-12-02T11:30", end="2026-12-02T12:30", attendees=HAS(HANNAH),
               weight=2, note="first common free time is 11:30; now one hour long"),
         record("events", title=C("Expense review"), status="confirmed", count=1, note="the 30-minute one is gone"),
         unchanged("events")],
        [call("contacts_search", query="Hannah"),
         call("calendar_free_slots", day="2026-12-02", duration_minutes=30, attendees=[ME, HANNAH]),
         call("calendar_create", title="Expense review", start="2026-12-02T11:30", end="2026-12-02T12:00",
              attendees=[ME, HANNAH], location="Birch Room"),
         finish(),
         call("calendar_cancel", turn=1, event_id="evt-0022"),
         call("calendar_free_slots", turn=1, day="2026-12-02", duration_minutes=60, attendees=[ME, HANNAH]),
         call("calendar_create", turn=1, title="Expense review", start="2026-12-02T11:30", end="2026-12-02T12:30",
              attendees=[ME, HANNAH], location="Birch Room"),
         finish(turn=1)],
        "multi_resource_temporal_scheduling", "medium", ["calendar", "reschedule", "multi_turn"]))

    tasks.append(task(
        23, ["Lena has renewed the Figma licences, so her to-do for that can be ticked off.",
             "She also mentioned some seats that need cleaning up. Give her a to-do for that, due on the date she gave."],
        [record("todos", id="todo-0006", status="done", note="Figma renewal done"),
         record("todos", owner=LENA, due="2026-12-11", status="open", note="seat clean-up by 2026-12-11"),
         unchanged("todos")],
        [call("mail_search", sender="lena"), call("mail_read", message_id="msg-0034"), call("todo_list", owner=LENA),
         call("todo_complete", todo_id="todo-0006"), finish(),
         call("todo_add", turn=1, title="Remove the ex-contractor Figma seats (Nadia, Owen)", owner=LENA,
              due="2026-12-11"),
         finish(turn=1)],
        "transactional_workspace", "easy", ["mail", "todos", "multi_turn"]))

    tasks.append(task(
        24, [f"I'm putting together an on-call sheet. Write {ONCALL} with the name, email and phone number of everyone "
             "on the Engineering team.",
             "Add Lena to it as well; she's joining the rota as IT cover."],
        [file_has(ONCALL, JONAS, "555 0103", note="Jonas"), file_has(ONCALL, SAMIRA, "555 0104", note="Samira"),
         file_has(ONCALL, AISHA, "555 0105", note="Aisha"), file_has(ONCALL, LENA, "555 0110", note="Lena added"),
         # every contact's row would hold each line above: a sheet naming someone off the rota is a dump
         file_has(ONCALL, "Email", lacks=NOT_ON_CALL, note="no one off the rota"),
         unchanged(ONCALL)],
        [shell("office contacts-search --query Engineering"), call("write_file", path=ONCALL, content=ONCALL_ENGINEERING),
         finish(),
         call("contacts_search", turn=1, query="Lena"),
         call("write_file", turn=1, path=ONCALL, content=ONCALL_WITH_LENA), finish(turn=1)],
        "cross_tool_pipeline", "easy", ["contacts", "report", "shell", "cli", "multi_turn"], split="test"))

    tasks.append(task(
        25, "Priya asked to push our Friday 1:1 to the afternoon. Move it to the earliest time that works with what she "
            "asked for.",
        [record("events", id="evt-0012", status="cancelled", note="morning 1:1 cancelled"),
         event(start="2026-12-04T13:00", end="2026-12-04T13:30", attendees=HAS(PRIYA), weight=2,
               note="Priya: anything from 13:00; both free at 13:00"),
         unchanged("events")],
        [shell("office mail-search --sender priya"), shell("office mail-read --message-id msg-0029"),
         shell(f"office calendar-list --date-from 2026-12-04 --date-to 2026-12-04 --attendee {ME}"),
         shell(f"office calendar-free-slots --day 2026-12-04 --duration-minutes 30 --attendees {ME} {PRIYA}"),
         shell("office calendar-cancel --event-id evt-0012"),
         shell(f'office calendar-create --title "1:1 Alex / Priya" --start 2026-12-04T13:00 --end 2026-12-04T13:30 '
               f'--attendees {ME} {PRIYA} --location "Birch Room"'),
         finish()],
        "multi_resource_temporal_scheduling", "medium", ["calendar", "mail", "reschedule", "shell", "cli"]))

    demo = [ME, JONAS, SAMIRA, AISHA, MARCO]
    tasks.append(task(
        26, ["Jonas asked me to add Daniel to Friday's sprint demo. Please sort that out: same time and room.",
             "And drop Daniel a short note that he's in, with the time and room."],
        [event(title=C("demo"), start="2026-12-04T16:00", end="2026-12-04T17:00", attendees=HAS(DANIEL),
               location=C("Atlas"), weight=2, note="demo with Daniel, same time and room"),
         record("events", id="evt-0013", status="cancelled", weight=0.5, note="no duplicate demo"),
         *[event(start="2026-12-04T16:00", attendees=HAS(person), role="guard", note="existing attendee kept")
           for person in (JONAS, SAMIRA, AISHA, MARCO)],
         sent(to=HAS(DANIEL), body=C("16:00"), note="Daniel told the time"),
         unchanged("events", "mail")],
        [call("mail_search", query="sprint demo"), call("mail_read", message_id="msg-0037"),
         call("calendar_list", date_from="2026-12-04", date_to="2026-12-04"),
         call("calendar_list", date_from="2026-12-04", date_to="2026-12-04", attendee=DANIEL),
         call("calendar_cancel", event_id="evt-0013"),
         call("calendar_create", title="Sprint demo", start="2026-12-04T16:00", end="2026-12-04T17:00",
              attendees=demo + [DANIEL], location="Atlas Room"),
         finish(),
         call("mail_send", turn=1, to=[DANIEL], subject="Sprint demo on Friday",
              body="Hi Daniel,\n\nYou're in: Sprint demo on Friday 2026-12-04, 16:00-17:00 in the Atlas Room. Jonas will "
                   "show the Lumen prototype.\n\nAlex"),
         finish(turn=1)],
        "workflow_orchestration", "medium", ["calendar", "mail", "multi_turn"]))

    tasks.append(task(
        27, "Rachel's accounts team can't find one of our invoices. Please answer her.",
        [sent(to=HAS(RACHEL), in_reply_to="msg-0022", body=C("NW-2026-118"), weight=2,
              note="second-milestone invoice number, in her thread"),
         sent(to=HAS(RACHEL), body=C("2026-12-15"), weight=0.5, note="due date"),
         sent(to=HAS(RACHEL), cc=HAS(HANNAH), note="Finance cc'd on invoice questions"),
         sent(to=HAS(RACHEL), cc=HAS(TOM), weight=0.5, note="account owner cc'd"),
         unchanged("mail")],
        [call("mail_search", sender="rachel"), call("mail_read", message_id="msg-0022"),
         call("read_file", path="projects/harbor_coffee_rebrand.md"), call("read_file", path=HANDBOOK),
         call("read_file", path="data/clients.json"),
         call("mail_send", to=[RACHEL], cc=[TOM, HANNAH], subject="Re: Invoice for the second milestone",
              in_reply_to="msg-0022",
              body="Hi Rachel,\n\nThe second-milestone invoice is NW-2026-118: $12,000, sent on 2026-11-16 and due on "
                   "2026-12-15. I've copied Hannah from our Finance team in case your team needs a copy.\n\nBest,\nAlex"),
         finish()],
        "constraint_guided_state_machine", "medium", ["mail", "docs", "policy", "client"], split="test"))

    over = "reports/over_budget.csv"
    WITHIN_BUDGET = ("Hardware", "Office rent", "Stock imagery", "Print production", "Training", "Testing devices",
                     "Conferences", "Travel", "Trade shows", "Audit and accounting")
    tasks.append(task(
        28, f"Make me a CSV of every Q4 category that's over budget, at {over}, with the header category,overspend_usd "
            "and plain numbers, biggest overspend first.",
        [file_has(over, "category,overspend_usd\nContractors,4200", weight=2, note="header, then the biggest"),
         file_has(over, "Software licences,1850", "Client entertainment,610", note="other large overspends"),
         file_has(over, "Cloud hosting,720", "Bank fees,55", note="small overspends count too"),
         # A CSV of every category would hold all of the above: one within budget (or exactly on it) is a dump.
         file_has(over, "category,overspend_usd", lacks=WITHIN_BUDGET, note="no category within budget"),
         unchanged(over)],
        [shell("head -3 data/q4_budget.csv"),
         shell("{ echo category,overspend_usd; awk -F, 'NR>1 && $4>$3 {print $1\",\"$4-$3}' data/q4_budget.csv "
               f"| sort -t, -k2,2nr; }} > {over} && cat {over}"),
         finish()],
        "cross_tool_pipeline", "medium", ["csv", "report", "shell", "awk"]))

    tasks.append(task(
        29, "How much of the Harbor Coffee contract is still left to invoice? Give me the total in dollars, written like "
            "$12,000.",
        [answer("24,000", note="milestones 3 and 4, $12,000 each"), unchanged()],
        [call("find_files", pattern="*harbor*"), call("read_file", path="projects/harbor_coffee_rebrand.md"),
         finish("$24,000 is still to be invoiced: milestone 3 (final design sign-off) and milestone 4 (print and "
                "packaging delivery), $12,000 each. NW-2026-104 is paid and NW-2026-118 has been sent.")],
        "cross_tool_pipeline", "easy", ["docs", "read_only"]))

    handover = [ME, PRIYA, OLIVIA]
    tasks.append(task(
        30, "Set up a 45-minute print handover with Olivia from PrintWorks and Priya on Thursday afternoon, not before "
            "15:00, at the earliest time that works for all three of us. Pick the room by the handbook.",
        [event(start="2026-12-03T16:00", end="2026-12-03T16:45", attendees=HAS(OLIVIA), weight=2,
               note="Priya is busy 15:00-16:00, so 16:00 is the only slot"),
         event(start="2026-12-03T16:00", attendees=HAS(PRIYA), weight=0.5, note="Priya invited"),
         event(start="2026-12-03T16:00", location=IN("Atlas Room", "Lantern Room"), weight=0.5,
               note="a vendor attends: not the Birch Room"),
         unchanged("events")],
        [call("contacts_search", query="Olivia"),
         call("calendar_free_slots", day="2026-12-03", duration_minutes=45, attendees=handover),
         call("grep", pattern="Birch", path=HANDBOOK),
         call("calendar_create", title="PrintWorks: print handover", start="2026-12-03T16:00", end="2026-12-03T16:45",
              attendees=handover, location="Atlas Room"),
         finish()],
        "multi_resource_temporal_scheduling", "medium", ["calendar", "rooms", "vendor"], split="test"))

    tasks.append(task(
        31, "Sofia needs the holiday party numbers for the caterer. The RSVPs are in data/party_rsvps.csv; reply to her "
            "with what she asked for.",
        [sent(to=HAS(SOFIA), body=C("Headcount: 9"), weight=2, note="9 people attending"),
         sent(to=HAS(SOFIA), body=C("vegan"), weight=0.5, note="dietary needs of attendees"),
         sent(to=HAS(SOFIA), body=C("gluten"), weight=0.5, note="dietary needs of attendees"),
         sent(to=HAS(SOFIA), in_reply_to="msg-0035", weight=0.5, note="in her thread"),
         none("mail", folder="sent", body=C("nut allergy"), note="Lena isn't coming: her allergy is irrelevant"),
         unchanged("mail")],
        [shell("awk -F, 'NR>1 && $3 == \"yes\"' data/party_rsvps.csv | wc -l"),
         shell("awk -F, 'NR>1 && $3 == \"yes\" && $4 != \"\" {print $1\": \"$4}' data/party_rsvps.csv"),
         call("mail_search", sender="sofia"), call("mail_read", message_id="msg-0035"),
         call("mail_send", to=[SOFIA], subject="Re: Holiday party: headcount and dietary needs", in_reply_to="msg-0035",
              body="Hi Sofia,\n\nHeadcount: 9\nDietary needs: 2 vegetarian (Priya, Marco), 1 vegan (Samira), "
                   "1 gluten-free (Jonas).\n\nAlex"),
         finish()],
        "cross_tool_pipeline", "medium", ["csv", "mail", "shell", "awk"],
        initial=InitialState(files={"data/party_rsvps.csv": RSVPS})))

    jonas_move = inbox_mail("msg-0041", JONAS, "Sprint demo moving to next week",
                            "Alex, the prototype build won't be ready by Friday. Could you cancel Friday's sprint demo "
                            "and set it up again for Wednesday 2026-12-09 at 14:00, one hour, same people and room? Jonas",
                            "2026-12-01T08:55")
    tasks.append(task(
        32, "Jonas emailed this morning about the sprint demo. Please do what he asks.",
        [record("events", id="evt-0013", status="cancelled", note="Friday's demo cancelled"),
         event(title=C("demo"), start="2026-12-09T14:00", end="2026-12-09T15:00", attendees=HAS(JONAS), weight=2,
               note="re-created on Wednesday 14:00"),
         event(start="2026-12-09T14:00", attendees=HAS(AISHA), weight=0.5, note="same people"),
         event(start="2026-12-09T14:00", location=C("Atlas"), weight=0.5, note="same room"),
         unchanged("events")],
        [call("mail_search", sender="jonas"), call("mail_read", message_id="msg-0041"),
         call("calendar_list", date_from="2026-12-04", date_to="2026-12-04"),
         call("calendar_free_slots", day="2026-12-09", duration_minutes=60, attendees=demo),
         call("calendar_cancel", event_id="evt-0013"),
         call("calendar_create", title="Sprint demo", start="2026-12-09T14:00", end="2026-12-09T15:00", attendees=demo,
              location="Atlas Room"),
         finish()],
        "workflow_orchestration", "medium", ["calendar", "mail", "reschedule"],
        initial=InitialState(rows={"mail": [jonas_move]})))

    pricier = ("Hi Alex,\n\nMy claim for the Harbor Coffee client dinner on 2026-11-19 at Osteria Nove: $292.40 for 4 "
               "people (me, Priya, Rachel and her colleague Diego). The itemised receipt is attached to the claim form in "
               "the expenses folder.\n\nCan you approve it?\n\nThanks,\nMarco")
    tasks.append(task(
        33, "Can you deal with Marco's expense claim for the client dinner? Check it against the policy first.",
        [sent(to=HAS(MARCO), in_reply_to="msg-0016", body=C("declined"), weight=2,
              note="$73.10 per person is over the $60 limit"),
         sent(in_reply_to="msg-0016", body=C("60"), weight=0.5, note="cites the limit"),
         unchanged("mail")],
        [call("mail_search", query="expense claim"), call("mail_read", message_id="msg-0016"),
         call("read_file", path=HANDBOOK),
         call("mail_send", to=[MARCO], subject="Re: Expense claim: Harbor Coffee client dinner", in_reply_to="msg-0016",
              body="Declined: $292.40 for 4 people is $73.10 per person, above the $60 per person limit for client "
                   "meals. Please resubmit for at most $240.00 (4 x $60).\n\nAlex"),
         finish()],
        "constraint_guided_state_machine", "medium", ["mail", "expenses", "policy"], split="test",
        initial=InitialState(updates={"mail": {"msg-0016": {"body": pricier}}})))

    tasks.append(task(
        34, "Who's the account owner for Lumen Health, and what's their phone number? I want to call them about the "
            "estimate.",
        [answer("Daniel", note="Daniel Okafor owns Lumen Health"), answer("555 0106", note="Daniel's phone"),
         unchanged()],
        [call("read_file", path="data/clients.json"), call("contacts_search", query="Daniel"),
         finish("Daniel Okafor (Sales, account director) owns Lumen Health; his phone is +1 555 0106.")],
        "cross_tool_pipeline", "easy", ["json", "contacts", "read_only"]))
    return tasks
