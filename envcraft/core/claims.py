"""Claims: what an answer asserts about the asked record, read as statements rather than as a bag of strings.

The answer is cut into sentences (at . ! ? and line breaks) and each sentence into clauses (at ; : , dashes,
parentheses, and before "but", "because", "since", "so", "although", "whereas", "while"); a cut never falls
inside a value, a record's name, a date, a time, a number or a rule's text. Each clause is then read by these
rules, in order; what a rule drops is blanked out, and what is left is graded as before (core/answers.py,
core/guesses.py): the expected value must be there, and no other value of the asked column (a dump).

1. Question. A sentence that ends with "?" asks, and so does one that opens with an auxiliary before its subject
   ("Is fnd-0002 ticketed", "Could it be ticketed."); one that opens with "If", "Unless" or "Whether" sets a
   condition ("If you give me an HVAC tech for that slot I'll schedule it"): none claims anything.
2. Owner. A clause is about the record it names: by its id (a new row's too: an id of a table's shape) or
   by a name the world gives it (a mostly distinct text field: a person's name, a bill number). A person's
   first or last name alone, capitalized ("Zoe prefers Hindi"), names the record the answer last named in full
   with that word, or, before any, the one person in the world with it (short_names). A value of the asked
   column that is another record's name, written with the noun of its kind ("the Procurement budget"), names
   that record (a refusal about a budget's department). A clause
   naming the asked record is about it; one naming only other records is about them, and its values are
   context: never credited, never a dump ("gap-0031 is now in panel_review"; "The age of <other person> is
   40" pays nothing). A value of the asked column is what a clause claims, never the name that owns it; a value
   inside a longer name is the name's ("Essay Draft" is an assignment, not the status draft). A
   clause that names no record is about the record of the clause before it in its sentence (a parenthesis
   does not change that, unless it gives the sentence its first record: "Exhibit A (efs-0013) is now
   rejected"; a clause naming none right before a bracket that names one is that record's label: "Essay Draft
   (asg-0022)"); a sentence that names none is about the asked record, or, when it opens with a pronoun ("It",
   "Its", "They") or has one in its first clause ("To undo it I posted it, then reversed it"), about the record
   the sentence before ended with, or, when that sentence named none, the record last named however far back;
   a later clause of a sentence naming no record is about that record too when it holds a pronoun ("The date is
   blank, and her account is paused"). A clause naming none before any record of its sentence that calls a
   record "the", "that" or "this" <kind> (the noun of its table) is about the last record of that kind named ("I
   marked the finding patched" after a finding's id). So is a sentence naming none that opens with the asked
   column's name, a label of the record before ("rap-0051 is Hannah's. Status booked."), and a later sentence
   of a list item (a line opening with "-", "*" or "1."), which is about the item's record ("- rln-0020:
   confirmed received. Note 230 arrived against 150 expected."). With no asked record known (a count, a list),
   owners are not read: every clause is about what was asked. A record the asked record refers to in
   another table (a case's room, a notice's outage event: where a path to the asked value ends) is said of the
   asked record and owns no clause ("Booked in orm-0003, 12:00 to 12:30"; "onot-0001 is for oev-0001. oev-0001
   is back at 14:00"); a record of the asked record's own table it refers to is another record. A number inside
   a record's name is the name's, no figure the answer states ("Lisinopril 10mg tabs: 450 units"). A value right
   after "other", "another" or "different" describes a record the clause does not name, not the asked one: it
   is context ("tell me which other online station to use"); so is a value written before the noun of another
   kind of record of the world ("the HVAC visit", "HVAC requests" in an answer about a technician's trade).
3. Rule or request. A clause that says what should, must, may, can or needs to be, or names a rule or a
   policy (its id or text; "rule <id>: ..." quotes its text to the end of the line, "(<id>: ...)" to the bracket's
   end), states a rule or a wish (and so does the clause that goes on with it past a bracketed aside: "the
   clinic's rule (judgement_1) is that exotic pets see the exotics vet"),
   not what is: its values are context. Naming the id of the rule that refuses the asked record, in a clause
   about that record, states the reason as well as its value would (`stated_reason`), unless the answer names
   other identifiers too (a list of every rule names none) or the clause doubts, denies or calls it wrong ("Maybe
   <id> applies", "It isn't <id>", "<id> doesn't apply"; "Not done per <id>" is the refusal's own "not"); an
   answer that names no record says it of none ("Not done (<id>)": a state guard's id is guessable); nor where the
   answer hedges a value of the asked column about that record ("It is A or B", "maybe A", "A, or possibly Y": a
   doubted value is no reason, nor is one beside the blocking value denied: "(<id>): it is not live"). A rule's
   text alone is context, never credit: the texts of all rules fit in one answer, and the grader does not know the
   others to call it a dump. With
   no asked record (a question about a document: "who signs off on claims above $500?") a rule is the answer.
4. Hedge. A clause that offers alternatives ("either", "or", "X/Y") or doubts ("maybe", "perhaps", "probably",
   "might", "could be", "seems", "apparently", "unconfirmed", "I think", "I suspect", "not sure") claims nothing, and
   neither does its sentence up to it ("A, B or C"); a sentence opening with "Or" hedges the sentence before it ("X.
   Or Y."). An "or" after a negator joins what is denied ("it can't be paid or approved"), and one inside a rule is
   the rule's ("only open or received orders").
5. Negation. From a negator ("not", "n't" or "nt" as typed, "never", "no", "no longer", "neither", "nor", "hardly",
   "instead of", "rather than") to the clause's end nothing is claimed, and a bracketed aside does not end the
   clause: what follows the bracket goes on with it ("could not mark TB-58 (tlb-0058) as processed"), while the aside
   itself is its own ("not dispatched (it is cancelled)"); a clause calling a value wrong ("X is wrong", "isn't
   right") claims nothing.
6. The conversation. A value written right after "I", "we" or "you" (and their auxiliaries) is the writer's own
   verb ("I've received your request"), not a claim; so is a value opening a sentence as a verb with its subject
   dropped, followed by what was done ("Finished what I could.", "Completed everything else."), and a value heading
   the writer's tally of the work: "All done except one item.", "Done: ..." opening a sentence (a record's id
   opening a list item, "- sgp-0041: confirmed", is the item's record, no tally). A value after
   "as", "to" or "into" that follows, in its sentence, a verb of change in its base or -ing form (mark, flag,
   set, move, change, put, ...) is what an action would make the record, not what it is: "Skipped marking X as a processing error: it is
   rejected", "tried to set X to approved". A change reported done ("X was marked as accepted") states it.
   A value right after "the one" (or "the one that was") picks a record out, as a request does, and claims
   nothing: "gap-0005, the one declined for "no 501c3 determination", is already awarded" claims awarded.
   A value in -ing right before a record's name is an action on it, not its state: "Not done: draining
   ci-runner-02 (rnr-0002). It is offline" claims offline ("rnr-0002 is draining" still claims draining).

7. History. Values joined by arrows in a sentence naming no record before them ("->", "=>", a unicode arrow) restates
   a lifecycle or a rule ("our pipeline is ticket -> PR -> merge -> patched -> verified"): context, never credit,
   never a dump; after a record's name the arrows tell its history ("vfd-0041: new -> triaged -> ticketed")
   and only their last value is claimed. After a past tense ("was", "were", "had been"), a value followed by
   "later", "then", "subsequently" or "afterwards" and another value is an earlier state, not a claim
   ("asn-0022 was issued on 16 Nov and later reported lost" claims lost). Alternatives stay a hedge ("it was A,
   B or C"), two states with no order between them stay a dump ("was issued and lost"), and a past state set
   against the present ("It was approved yesterday; now it's en route") is one unless the request said it.
   A value told as an event with whom or when ("issued to stf-0020", "approved on 3 Oct", "signed by Ann") is
   history where another value is claimed beside it ("(asn-0015, issued to stf-0020). It was already returned");
   alone it is a claim, and events with no state beside them stay a dump.

8. Who and when, as staff write it. "he", "she", "his", "her" stand for the person (a first and a last name, or
   a first name alone) the sentence, else the last sentence naming one, opens with: "Samuel Novak was not
   proposed for Inhaler technique coaching. His condition is ..." is Samuel's. "The <kind>" reads up to three
   words ("the change order", "the clinical study") and a code's letters ("the ECO" after ECO-0002); a kind of
   another table with none of its records named is another record ("The study targets asthma"); "That photo"
   is such a noun, not the pronoun "that"; the asked record's own noun is no rule word ("The policy is
   cancelled"). A clause is cut at "and" right before a record's name. What is ahead of now claims nothing:
   after "once", "until", "unless", "as soon as" to the clause's end, and a "when"/"after" clause in a sentence
   with "will" or "would". A value dated by a column named for it ("requested 8 Oct" beside requested_on), a
   tally's value ("two published, one left alone") and a value inside a longer value of the world ("editorial"
   in the usage "web editorial") are no state of the record; nor is a value right before the first word of a
   table's name ("the email alert for Tomas"). A rule's id said in a sentence whose subject is the asked record
   states the reason past another record's name; another rule's id costs that only where it is said of the
   asked record (a dump), not of another record ("For enr-0006 I followed call_script_2"). From later rounds:
   an -ing value before a record's name, after a refusal word, is the refused action ("Not done: sampling for
   ilt-0026"); "nothing to A or B" negates; "which", "any", "with a" before a value, and "our", "beyond",
   "past" speak of no state of the record; "its <asked column>" is the asked record's; list items under a line
   "<record>:" are that record's; a plan or an offer ("I will find a senior adjuster", "you'd like") and a rule's
   list after it (", senior or complex_loss") claim nothing; "the Kinze" names the record whose name it opens; a
   code shaped like the world's codes that no row holds is a record the episode made; and a record named by its
   id in brackets owns its clause whatever words name before it ("The other WF-2026-000019 filing (wgf-0051)").
   From the MCP agent's round: a value right after a record a verb of change acts on is its target ("marking
   AVL-0000005 (apb-0005) processed"); every clause inside a bracket is an aside ("(je-0022, period 2026-10)");
   a sentence opening "Rule <id>:" states the rule in its clauses that name no record; "goes to an hvac
   technician" is some record of that kind ("to", "for", "needs" ... before "a"), never "is an hvac technician".
   From the sixth by-hand round: "<record> is a <value> <noun>" (or "<record>, a <value> <noun>,") says the value
   of the record whatever the noun names elsewhere ("lcr-0007 is a gas service crew"); "that"/"this" before a word
   that is no table's own noun is the pronoun ("That machine does grinding"), and "the <word>" where the word only
   opens another table's name (machine_operators) calls no record of that table; a later sentence of a list item naming none is about the item's
   first record unless it calls one by its kind ("That budget ..."); a record's id beats its words beside it,
   either order ("cpu-0051 for Kubernetes Fundamentals"), and a clause with no verb of being that names the asked
   record only by a label several rows share describes the sentence's subject named by id ("cpu-0051 for Bruno
   Park (lac-0032) - Kubernetes Fundamentals, status requested"); a clause opening "while", "when", "if" ... after
   a rule's clause is the rule's condition, and one whose subject is "a"/"any"/"every" <noun> states a rule ("a
   rollback is only possible while a change is in progress"); a name's head before " - ", "," or "(" names its
   record when no other name has that head ("Studio D"); the request's own value alone in its clause, in a
   sentence setting it aside ("doesn't fit", "the date you gave"), is context; ", or <verb>" offering another
   action with no value is no hedge ("toner, or be split down to 2").
   From the eighth: a clause opening "if"/"unless" inside a sentence claims nothing, and a value after it holds
   only under it, a hedge ("it is ticketed; if not, it is a false positive"); "which is X" after "her/his/its
   <noun>" says X of that owner, past any rule word before it ("It has to go out on her preferred channel, which
   is SMS"); a refusal's rule id said of a record the request names is said of what it asked for ("the notice for
   1Z9X00000030 breaks <id>"), but not where it "may break" it; a list item's line that names a record is no
   "<record>:" header's ("Hi Hannah:" over "- pord-0049 ..."); "Please confirm/check ..." asks, claims nothing.
   From the ninth: "and is/was/has ..." opens a predicate of its own, with the sentence's subject (a record opening
   it, the first clause's record, or whom "Her"/"Its" stands for): "Her submission is not late and is returned",
   "attached to asg-0009, not asg-0007, and is returned"; "received yesterday", in the request's own words, tells
   an event as "issued to" does.

Every step is a regular expression over an answer of at most MAX_ANSWER_CHARS characters, and record names
are looked up by hashing the answer's word n-grams (at most MAX_NAME_WORDS long): linear in the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from envcraft.core.answers import LETTERS_DIGITS, date_spans, number_spans, time_spans
from envcraft.core.record_names import (
    MAX_NAME_WORDS,
    WORD,
    leading_words,
    record_names,
    short_names,
    singular,
    table_nouns,
    words,
)

RECORD_ID = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]\d[\w-]*(?<![-_])")  # cjb-0001, SI-000017
_SENTENCE_CUT = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_CLAUSE_CUT = re.compile(r";|:(?=\s)|,(?=\s)|\s[-\u2013\u2014]+\s|[()\[\]]|(?<=\")\s*:|,(?=[\"{\[])"  # compact JSON too
                         r"|\s(?=(?:but|because|since|so|although|though|whereas|while)\b)", re.I)
_PRONOUN_OPENING = re.compile(r"^\W*(?:it|it's|its|they|they're|their|this|that|these|those|he|she|his|her|both)\b",
                              re.I)
_RULE = re.compile(r"\b(?:should|must|may|can|will|would|could|let\s+me|\w+'d|\w+'ll|want|like|need(?:s|ed)?|ha(?:s|ve)\s+to|only|rules?|polic(?:y|ies)"
                   r"|allowed|permitted|requires?|required)\b", re.I)
_RULE_QUOTE = re.compile(r"\b(?:rule|policy)\s+[\w.-]+\s*:[^\n]*"  # "rule ap_1: <its text>" (_quote_end)
                         r"|(?<=\()\s*[A-Za-z][\w-]*_[\w-]*(?:\.[A-Za-z_]\w*)?\s*:[^)\n]*", re.I)  # "(op.status_in: <text>)"
_IDENTIFIER = re.compile(r"(?<![\w.-])[A-Za-z][\w-]*_[\w-]*(?:\.[A-Za-z_]\w*)?(?![\w-])")  # ap_policy_1, op.no_overlap1
_ISO_T = re.compile(r"(?<=\d)T(?=\d)")  # the T of an ISO date and time
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d")
_PERSONAL = re.compile(r"\W*\b(?:he|she|his|her|him|hers)\b", re.I)  # a person's pronoun: the person named last
_PRONOUN_OTHER = re.compile(r"\b(?:it|its|they|them|their)\b", re.I)
_PERSON_NAME = re.compile(r"[A-Z][a-z'\u2019-]+\s+[A-Z][a-z'\u2019-]+")  # "Samuel Novak"
_AHEAD = re.compile(r"\b(?:even\s+)?(?:once|as\s+soon\s+as|until|till|unless|in\s+case)\b", re.I)  # not yet
_WHEN = re.compile(r"\W*(?:even\s+)?(?:when|after)\b", re.I)  # with "will" after it: ahead
_DATE_GAP = re.compile(r"\s+(?:on\s+|at\s+)?(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?\s+)?")  # "requested Thu 2026-11-05"
_DAY_MONTH = re.compile(r"\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]{2}|[A-Z][a-z]{2,8}\.?\s+\d{1,2}\b")  # "8 Oct", "Oct 8"
_COUNTED = re.compile(r"\W*(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|both|none|all)\s+", re.I)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|he|she|him|her|his)\b", re.I)
_WHICH_IS = re.compile(r"\W*which\s+(?:is|was|are|were)\b", re.I)
_POSSESSED = re.compile(r"\b(his|her|its|their)\s+(?:[^\W\d_]+[\s-]+){0,3}[^\W\d_]+\W*$", re.I)  # "her preferred channel"
_IF_CLAUSE = re.compile(r"\W*(?:(?:but|and|so|or|even)\s+)?(?:if|unless)\b", re.I)
_CONDITION = re.compile(r"\W*(?:if|unless|whether(?!\s+or\s+not))\b", re.I)  # a condition claims nothing
# "Is fnd-0002 ticketed", "Could it be ticketed": an auxiliary before its subject asks, with or without its "?"
_ASKING = re.compile(r"\W*(?:is|are|was|were|do|does|did|has|have|had|can|could|would|will|should|shall|might)"
                     r"\s+(?:it|they|he|she|" + RECORD_ID.pattern + r")(?![\w-])(?!\s*[:,.!;])", re.I)  # not "Did it:"
# "Please confirm the office action was resolved.": asks the reader to find out, claims nothing (careful20h BE)
_PLEASE_CHECK = re.compile(r"\W*(?:please\s+|can\s+you\s+|could\s+you\s+)(?:confirm|check|verify|double[\s-]?check"
                           r"|make\s+sure|let\s+(?:me|us)\s+know|find\s+out)\b", re.I)
_OR_OPENING = re.compile(r"^\W*or\b", re.I)
_OR_DOUBT = re.compile(r"\W*or\s+(?:else\s+)?(?:maybe|perhaps|possibly|probably|likely)\b", re.I)  # ", or possibly Y"
_DOUBT_WORDS = (r"maybe|perhaps|possibly|probably|presumably|likely|might|unsure|not\s+sure"
                r"|could\s+be|seem(?:s|ed|ingly)?|apparently|unconfirmed|unclear|uncertain|doubt"
                r"|I\s+suspect|I'm\s+guessing|my\s+guess|I\s+(?:think|guess|believe|suppose)")
_HEDGE = re.compile(r"\b(?:either|or|" + _DOUBT_WORDS + r")\b", re.I)
_DOUBT = re.compile(r"\b(?:" + _DOUBT_WORDS + r")\b", re.I)  # doubt, not alternatives
_NEGATOR = re.compile(r"\b(?:not|never|no|none|nothing|neither|nor|no\s+longer|cannot|instead\s+of|rather\s+than|hardly|barely"
                      r"|scarcely|(?:is|are|was|were|do|does|did|has|have|had|ca|could|would|should|wo|ai)nt)\b|n't\b",
                      re.I)
# between a negator and a rule's id, words that leave the rule what is denied: "isn't <id>", "not a <id> issue",
# "not what <id> says", "nothing to do with <id>", "not blocked by <id>"
_MAY_BREAK = re.compile(r"\bmay\s+(?:break|violate|apply|fall\s+under|conflict|trip)\b", re.I)  # "may not" forbids
_RULE_FILLER = re.compile(r"(?:[\s\W]|\b(?:the|a|an|any|our|rule|policy|what|about|under|due|to|do|with|because|of|by"
                          r"|break|breaks|breaking|violate|violates|violating|trip|trips|fall|falls|conflict|conflicts"
                          r"|per|from|for|related|blocked|covered|caught|hit|really|actually|in|it|that|this|is|was)\b)*",
                          re.I)
_RULE_DENIED = re.compile(r"[\s)\]'\"]*(?:does|did|do|is|was|would|will)?\s*(?:not|n't|never)\s+"
                          r"(?:apply|applies|matter|relevant|involved|related|the\s+(?:reason|issue|problem|cause)|it)\b",
                          re.I)  # "<id> doesn't apply", "<id> is not the reason"; "<id> isn't met" is the rule blocking
_WHEN_TOLD = re.compile(r"\s+(?:yesterday|today|tonight|earlier|this\s+(?:morning|afternoon|evening|week)"
                        r"|last\s+(?:night|week|month|(?:mon|tues|wednes|thurs|fri|satur|sun)day))\b", re.I)  # "received yesterday"
_SUBJECT_PRONOUN = re.compile(r"\W*(?:it|it's|its|they|they're|their|he|she|his|her)\b", re.I)
_COORDINATED = re.compile(r"\W*and\s+(?:is|was|are|were|has|have|had)\b", re.I)  # "... and is already returned"
_EVENT_AFTER = re.compile(r"\s+(?:to|by|on|in|from)\s+", re.I)  # "issued to <someone>", "approved on <date>"
_MONTH_WORD = re.compile(r"(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b")
_CALLED_WRONG = re.compile(r"\b(?:is|was|are|were|'s)\s+(?:wrong|incorrect|false|mistaken|a\s+mistake"
                           r"|not\s+(?:right|correct|it|true|accurate))\b"
                           r"|\b(?:isn't|wasn't|aren't)\s+(?:right|correct|it|true|accurate)\b", re.I)
_DROPPED_SUBJECT = re.compile(r"\W*([A-Za-z][\w-]*)\s+(?:what|everything|all\s+of|most\s+of|the\s+rest|up|off|my|our)\b",
                              re.I)  # "Finished what I could.": the writer's verb, its "I" dropped
_TALLY = re.compile(r"\W*(?:all\s+([A-Za-z][\w-]*)(?![\w-])|([A-Za-z][\w-]*)\s*:)", re.I)  # "All done", "Done:"
# "Skipped marking X as a processing error", "tried to set X to approved": what an action would make the record,
# said with the verb in its base or -ing form (not done); a done change ("was marked as") states what it is
_CHANGE_VERB = re.compile(r"\b(?:mark(?:ing)?|flag(?:ging)?|set(?:ting)?|mov(?:e|ing)|chang(?:e|ing)|switch(?:ing)?"
                          r"|put(?:ting)?|turn(?:ing)?|transition(?:ing)?|updat(?:e|ing)|classify(?:ing)?|record(?:ing)?"
                          r"|revert(?:ing)?|convert(?:ing)?|escalat(?:e|ing)|re-?open(?:ing)?|send(?:ing)?)\b", re.I)
_TARGET_BEFORE = re.compile(r"\b(?:as|to|into)\s+(?:an?\s+|the\s+)?$", re.I)
_ANOTHER_BEFORE = re.compile(r"\b(?:an?other|other|different|which|whichever|any)\s+$", re.I)  # "another online
# station", "which building inspector you'd like": not this one
_JUST_AFTER = re.compile(r"[\s\"'\u201d]*(?:\(\s*[\w-]+\s*\))?[\s\"'\u201d]*")  # a name, its id, then the value
_PREDICATE = re.compile(r"\b(?:is|was|are|were|'s)\s+(?:an?\s+)$", re.I)  # "<record> is a <value> <kind noun>":
# the value is said of the subject, whatever the noun after it names elsewhere ("a grinding machine")
_SOME_A = re.compile(r"\b([\w']+)\s+an?\s+$", re.I)  # "goes to an hvac technician", never "is an hvac ..."
_RULE_SENTENCE = re.compile(r"\W*(?:per\s+)?(?:rule|policy)\b", re.I)  # "Rule dock_rules_2: a live load is outbound"
_SOME_AFTER = frozenset({"to", "for", "from", "by", "needs", "need", "find", "get", "assign",
                         "call", "wants"})  # "goes to an hvac technician": some record of that kind
_ANOTHER_ONE = re.compile(r"\b(?:another|the\s+other|a\s+different|some\s+other)\s+[^\W\d_]+", re.I)
_GUARD = re.compile(r"\W*(?:while|when|whenever|as\s+long\s+as|if|unless|until|before|after|once)\b", re.I)
_GENERIC = re.compile(r"\W*(?:(?:and|but|so)\s+)?(?:a|an|any|every|each)(?:\s+[^\W\d_]+){1,2}\s+(?:is|are|can|may"
                      r"|must|has|have|needs?|goes|go)\b", re.I)  # a generic subject: "a rollback is possible ..."
_JOINING = frozenset({"for", "of", "called", "named", "titled", "the", "a", "an", "new"})  # an id and its label
_MISFIT = re.compile(r"\b(?:does|do|did|would|will|wo|ca|can|could|is|was)(?:n't|nt|\s+not)\s+(?:fit|work|match|suit"
                     r"|apply|line\s+up|qualify|comply|meet|agree|hold)\b|\byou\s+(?:gave|asked\s+for|requested|wanted"
                     r"|proposed|suggested|named|picked|chose|mentioned)\b|\b(?:is|was)(?:n't|nt|\s+not)\s+(?:possible"
                     r"|valid|allowed|available)\b|\b(?:requested|proposed|suggested|asked[- ]for|given)\s+(?:date|time"
                     r"|day|slot|value|figure|amount)\b", re.I)  # the request's value, set aside
_OR_ACTION = re.compile(r"\W*or\s+(?:(?:you|we|I)\s+(?:can|could)\s+)?(?:be|go|get|wait|ask|send|split|use|try|take|make"
                        r"|call|book|contact|resubmit|reschedule|move|choose|pick|let|have|raise|file|submit|reduce"
                        r"|cancel|come|return|apply|order)\b(?!.*\b(?:else|other|another|different)\b)", re.I)  # "or be split"
_BEING = re.compile(r"\b(?:is|are|was|were|be|been|being|has|have|had|isn't|wasn't|'s|does|did|holds?|stays?)\b", re.I)
_BEYOND = re.compile(r"\b(?:beyond|past)\s+(?:the\s+|its\s+)?$", re.I)  # "beyond the started stage"
_WITH_A = re.compile(r"\b(?:with|without)\s+an?\s+$", re.I)  # "even with a building inspector": a record there isn't
_OUR = re.compile(r"\b(?:our|my|your)\s+$", re.I)  # "our sampling plan": the writer's thing, not the record's state
_REFUSED = re.compile(r"\b(?:not\s+done|skipped|skipping|held|parked|left|declined)\b|" + _NEGATOR.pattern, re.I)
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*\u2022]|\d+[.)])\s")  # "- rln-0020: received. Note 230 arrived ...": one item
_QUOTES = re.compile(r"[\s\"'\u201c]*(?:(?:for|of|on|to|at)\s+(?:the\s+)?)?[\"'\u201c]*")  # between an action's
# -ing word and the record it acts on
_THE_ONE = re.compile(r"\bthe\s+one\s+(?:(?:that|which)\s+)?(?:(?:was|is|got|had\s+been)\s+)?$", re.I)  # a label
_DEFINITE = re.compile(r"\b(?:the|that|this|these|those)((?:\s+[^\W\d_]+){1,3})", re.I)  # "the (change) order"
_ARROW = re.compile(r"-+>|=+>|[\u2192\u21d2\u27f6]")  # "ticket -> PR -> merge": a lifecycle, or a record's history
_PAST = re.compile(r"\b(?:was|were|had\s+been|has\s+been)\b", re.I)  # "asn-0022 was issued and later lost"
_LATER = re.compile(r"\b(?:later|then|subsequently|afterwards?|after\s+that)\b", re.I)  # not "now" (rule 7)
_OWN_VERB = re.compile(r"\b(?:I|we|you)(?:'ve|'d|'m|'re|'ll)?(?:\s+(?:have|had|am|are|was|were|just|already|also|then"
                       r"|now))*\s+([A-Za-z][\w-]*)", re.I)


@dataclass(frozen=True)
class Reading:
    """What to read an answer for: the asked record, the world's record names, the asked column's values."""

    about: frozenset[str] = frozenset()  # ids of the asked record and of the records the request names it by
    names: dict[tuple[str, ...], frozenset[str]] = field(default_factory=dict)
    short: dict[str, frozenset[str]] = field(default_factory=dict)  # first and last names (short_names)
    nouns: frozenset[str] = frozenset()  # what the asked record is ("budget"): "the Finance budget" names a record
    kinds: frozenset[str] = frozenset()  # what the world's other records are ("visit", "visits"): "the HVAC visit"
    values: tuple[str, ...] = ()  # the asked column's values: what a clause claims, never a name
    expected: tuple[str, ...] = ()  # the values the check asks for (the blocking value of a refusal)
    requested: frozenset[str] = frozenset()  # ids of the records the request names (what a refused create is for)
    reasons: tuple[str, ...] = ()  # the rule that refuses the asked record: its id, its text
    column: str = ""  # the asked column ("status"): a sentence opening with it labels the record before
    referred: frozenset[str] = frozenset()  # ids of what the asked record holds in other tables (its room)
    world_words: frozenset[str] = frozenset()  # the world's own identifiers (column names, values such as
    # dept_review): written in an answer they are data, not other rules
    record_kinds: dict[str, frozenset[str]] = field(default_factory=dict)  # id -> its table's nouns ("finding")
    phrases: frozenset[tuple[str, ...]] = frozenset()  # the words of the world's values of two words or more
    heads: frozenset[str] = frozenset()  # the first words of the world's table names ("alert" of alert_notifications)
    leads: dict[str, frozenset[str]] = field(default_factory=dict)  # the first word of a name of several words, as
    # staff shorten it after "the" ("the Kinze" for the Kinze 1100 grain cart) -> the records it leads
    restated: frozenset[tuple[str, ...]] = frozenset()  # the words of the asked column's other values that the
    # request itself states (the inspection date asked for): "so 2026-12-28 doesn't fit" restates it


@dataclass
class Claims:
    text: str  # the answer with everything that is not a claim about the asked record blanked
    stated_reason: bool = False  # a rule refusing the asked record is named as the reason


def _phrase_spans(text: str, phrases: Iterable[str]) -> list[tuple[int, int]]:
    """Where `text` writes each phrase as whole words, through any case, spacing, underscores or hyphens."""
    spans = []
    for phrase in {p for p in phrases if p and p.strip()}:
        parts = WORD.findall(_ISO_T.sub(" ", phrase))  # 2026-11-17T11:00 is 2026-11-17 11:00, as core/answers.py reads it
        if not parts:
            continue
        joint = r"(?:[\W_]+|(?<=\d)T(?=\d))" if _DATETIME.match(phrase) else r"[\W_]+"
        pattern = r"(?<![^\W_])" + joint.join(LETTERS_DIGITS.sub(r"[\\W_]*", re.escape(p)) for p in parts) \
            + r"(?![^\W_])"  # letters and digits written together or apart: "type 2 diabetes" is type2_diabetes
        spans += [m.span() for m in re.finditer(pattern, text, re.I)]
    return spans


def _name_spans(text: str, reading: Reading, values: list[tuple[int, int]]) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, ids) of each record named: ids by shape, names by their words (longest first), none inside
    a value of the asked column."""
    found: list[tuple[int, int, frozenset[str]]] = []
    prefixes = {key[0] for key in reading.names if len(key) >= 2 and all(w.isdigit() for w in key[1:])}  # cjb-0001,
    # WF-2026-000019: a code of that shape the world does not hold is a record the episode made
    for match in RECORD_ID.finditer(text):
        ids = reading.names.get(words(match.group(0)))
        if ids is None and words(match.group(0))[0] in prefixes:
            ids = frozenset({match.group(0).casefold()})  # a record the episode created: not the asked one
        if ids is not None:
            found.append((match.start(), match.end(), ids))
    tokens = [(m.start(), m.end(), m.group(0).casefold()) for m in WORD.finditer(text)]
    i = 0
    while i < len(tokens):
        for n in range(min(MAX_NAME_WORDS, len(tokens) - i), 0, -1):
            ids = reading.names.get(tuple(t[2] for t in tokens[i:i + n]))
            if ids:
                found.append((tokens[i][0], tokens[i + n - 1][1], ids))
                i += n - 1
                break
        else:
            if person := _first_or_last_name(text, tokens, i, reading, found):
                found.append((tokens[i][0], tokens[i][1], person))
            elif i and tokens[i - 1][2] == "the" and text[tokens[i][0]].isupper() and tokens[i][2] in reading.leads:
                found.append((tokens[i][0], tokens[i][1], reading.leads[tokens[i][2]]))  # "the Kinze": its make
        i += 1
    found = [(s, e, ids) for s, e, ids in found if not any(s < ve and vs < e for vs, ve in values)
             or all(s <= vs and ve <= e and (vs, ve) != (s, e) for vs, ve in values if s < ve and vs < e)
             or (reading.about and not ids & reading.about and _called(text, s, e, reading.nouns))]
    by_start = {s: ids for s, _, ids in found}
    ided = {s for s, e, ids in found if text[s:e].casefold() in ids}  # a record's own id, not a name
    for index, (start, end, ids) in enumerate(found):  # "Exhibit A (efs-0013)": the id picks one of a shared name
        after = re.match(r"\s*[(\[]\s*", text[end:])
        narrowed = by_start.get(end + after.end()) if after else None
        if narrowed and (narrowed < ids or (not narrowed & ids and end + after.end() in ided)):  # "(wgf-0051)":
            found[index] = (start, end, narrowed)  # an id is one record's, whatever the words before it say
    return found


def _first_or_last_name(text: str, tokens: list[tuple[int, int, str]], i: int, reading: Reading,
                        found: list[tuple[int, int, frozenset[str]]]) -> frozenset[str] | None:
    """The record token i names as a first or last name: written capitalized, not followed by another capitalized
    word ("Senior Tech Tutoring" is a title), standing for a person (_person)."""
    start, end, word = tokens[i]
    people = reading.short.get(word)
    if not people or not text[start].isupper():
        return None
    if i + 1 < len(tokens) and text[tokens[i + 1][0]].isupper() and text[end:tokens[i + 1][0]].isspace():
        return None
    return _person(people, sorted(f for f in found if f[1] <= start))


def _person(people: frozenset[str], named: list[tuple[int, int, frozenset[str]]]) -> frozenset[str] | None:
    """Whom a first or last name stands for: the record last named in full with it before it ("Vera Patel ... Vera";
    `named` in text order), else the one person in the world with that name."""
    for _, _, ids in reversed(named):
        if len(ids) == 1 and ids <= people:
            return ids
    return people if len(people) == 1 else None


def _called(text: str, start: int, end: int, nouns: frozenset[str]) -> bool:
    """A value written as a record's name: "the Procurement budget", "budget Procurement", "Procurement's budget"."""
    after = re.match(r"(?:'s)?\s+([^\W_]+)", text[end:])
    before = re.search(r"([^\W_]+)\s+$", text[:start])
    return bool((after and after.group(1).casefold() in nouns) or (before and before.group(1).casefold() in nouns))


def named_records(text: str, names: dict[tuple[str, ...], frozenset[str]]) -> list[frozenset[str]]:
    """The ids of each record `text` names."""
    return [ids for _, _, ids in _name_spans(text, Reading(names=names), [])]


def named_spans(text: str, names: dict[tuple[str, ...], frozenset[str]]) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, ids) of each record `text` names, in text order (core/listing.py)."""
    return sorted(_name_spans(text, Reading(names=names), []), key=lambda span: span[:2])


def _cuts(pattern: re.Pattern, text: str, start: int, end: int, kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces of text[start:end] between matches of `pattern` that fall outside every kept span."""
    pieces, at = [], start
    for match in pattern.finditer(text, start, end):
        if any(s < match.end() and match.start() < e for s, e in kept):
            continue
        pieces.append((at, match.start()))
        at = match.end()
    pieces.append((at, end))
    return [(s, e) for s, e in pieces if text[s:e].strip()]


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = "\u2588" * (end - start)  # a value's own words ("not started", "Pass or fail") are no marker
    return "".join(chars)


def read(answer: str, reading: Reading) -> Claims:
    """The claims `answer` makes about the asked record (module docstring)."""
    values = _phrase_spans(answer, reading.values)
    idents = [m.span() for m in _IDENTIFIER.finditer(answer) if not any(vs <= m.start() and m.end() <= ve
                                                                        for vs, ve in values)]
    values = [v for v in values if not any(s <= v[0] and v[1] <= e for s, e in idents)]  # "mark_abandoned.status_in"
    names = _name_spans(answer, reading, values)
    idents = [(s, e) for s, e in idents if not any(ns <= s and e <= ne for ns, ne, _ in names)]
    values = [(vs, ve) for vs, ve in values if not any(s <= vs and ve <= e and (vs, ve) != (s, e) for s, e, _ in names)]
    quoted = [_quote_end(answer, m.span(), names) for m in _RULE_QUOTE.finditer(answer)]
    reasons = _phrase_spans(answer, reading.reasons) + quoted
    numeric = [(s, e) for _, s, e in date_spans(answer)[0]] + [(s, e) for _, s, e in time_spans(answer)[0]]
    kept = values + reasons + [(s, e) for s, e, _ in names] + numeric + [(s, e) for _, s, e in number_spans(answer)]
    named = [(s, e) for s, e, _ in names]
    plain = _masked(answer, values + reasons + named + numeric)
    blank: list[tuple[int, int]] = []
    ruled: set[tuple[int, int]] = set()  # clauses that go on with a rule's clause past a bracketed aside
    rule_ids = _phrase_spans(answer, [r for r in reading.reasons if _IDENTIFIER.fullmatch(r)])
    others = {m.group(0).casefold() for m in _IDENTIFIER.finditer(_masked(answer, values + named))}
    others -= {r.casefold() for r in reading.reasons} | reading.world_words
    foreign = [m.span() for m in _IDENTIFIER.finditer(_masked(answer, values + named)) if m.group(0).casefold() in others]
    dumped = False  # another rule's id said of the asked record: "rules ap_1, ap_2, ap_3" names none of them
    owners = [n for n in names if not {i.casefold() for i in n[2]} <= reading.referred]  # a case's room owns nothing
    label = WORD.findall(reading.column)
    labelled = re.compile(r"\W*" + r"[\W_]+".join(label) + r"(?![^\W_])", re.I) if label else None  # "Status booked."
    own_column = re.compile(r"\b(?:its|their)\s+" + r"[\W_]+".join(label) + r"\b", re.I) \
        if label and label != ["status"] else None  # "its QC status": only the asked record's kind has one
    stated = False
    doubted = False  # a value of the asked column hedged about the asked record, or the blocking value denied of
    # it: no rule named makes that a reason
    denied = _phrase_spans(answer, reading.expected)
    owner_before: str | None = None  # "about", "other" or None (no record named yet)
    last_named: str | None = None  # the record a pronoun stands for: the last one named, however far back
    last_of_kind: dict[str, str] = {}  # "finding" -> the last finding named: what "the finding" stands for
    person: str | None = None  # the person the last sentence naming one is about: what "his", "she" stand for
    header: str | None = None  # the record of a line "<record>:" over list items
    before: tuple[int, int] | None = None
    table_kinds = reading.kinds & frozenset().union(*set(reading.record_kinds.values()))  # a table's own noun
    for s_start, s_end in _cuts(_SENTENCE_CUT, answer, 0, len(answer), kept):
        sentence = answer[s_start:s_end]
        if _OR_OPENING.match(plain[s_start:s_end]) and before:
            blank.append(before)  # "X. Or Y.": the sentence before is one of the alternatives
        before = (s_start, s_end)
        if sentence.rstrip().endswith("?") or _CONDITION.match(sentence) or _ASKING.match(sentence):  # "If you"
            blank.append((s_start, s_end))
            continue
        if _PLEASE_CHECK.match(sentence):  # claims nothing, but names whom "her" and "the <kind>" stand for next
            blank.append((s_start, s_end))
        clauses = _and_cuts(answer, _cuts(_CLAUSE_CUT, answer, s_start, s_end, kept), owners)
        in_sentence = [(s, e, ids) for s, e, ids in owners if s_start <= s and e <= s_end]
        subject = _whose(in_sentence[0][2], reading) if in_sentence else None  # the record the sentence is about
        people = [(s, e, ids) for s, e, ids in in_sentence if _a_person(answer[s:e], reading)]
        person = _whose(people[0][2], reading) if people else person  # what "he", "her" stand for: a subject
        if re.search(r"\b(?:will|would|'ll)\b", sentence):  # "When it is released, it will still be ...": ahead
            blank += [c for c in _cuts(_CLAUSE_CUT, answer, s_start, s_end, kept) if _WHEN.match(answer, *c)]
        change = _CHANGE_VERB.search(plain, s_start, s_end)  # the sentence's first verb of change (rule 6)
        misfit = reading.restated and _MISFIT.search(plain, s_start, s_end)  # "The date you gave, 2026-12-28, ..."
        first = plain[clauses[0][0]:clauses[0][1]] if clauses else ""
        opening = _PRONOUN_OPENING.match(sentence)
        if opening and (kind := re.match(r"\s+([^\W\d_]+)", sentence[opening.end():])) and (
                kind.group(1).casefold() in table_kinds | reading.nouns | set(last_of_kind)):
            opening = None  # "That photo is archive": a definite noun (_antecedent), not the pronoun "that"; "That
            # machine does grinding" (a plain word, or only the first word of a table's name) is the pronoun
        refers = opening or (labelled and labelled.match(sentence) and not any(
            s_start <= s and e <= s_end for s, e, _ in owners)) or (_PRONOUN.search(first) and not any(
            s_start <= s and e <= s_end for s, e, _ in owners))  # "To undo it I took it through ...": the last record
        line = answer.rfind("\n", 0, s_start) + 1
        item = s_start > line and _LIST_ITEM.match(answer, line)  # a later sentence of a list item: the item's record
        topic = next((_whose(ids, reading) for s, _, ids in owners if line <= s < s_start), None) if item else None
        if item and not refers and _calls_kind(first, table_kinds | reading.nouns | set(last_of_kind)):
            topic = None  # "- <wipes> (sup-0036) on CC-008. That item is toner": "that item" (_antecedent)
        owner = owner_before if refers else topic  # None: a pronoun resolves to last_named (_antecedent)
        line_end = answer.find("\n", s_start)
        line_end = len(answer) if line_end < 0 else line_end
        if _LIST_ITEM.match(answer, line) and header and not any(line <= s < line_end for s, _, _ in owners):
            owner = header  # "HBL-0000026-2 (cen-0026):\n- CBP hold recorded.": the header's record
        elif not _LIST_ITEM.match(answer, line):
            header = None
        if opening and person and _PERSONAL.match(sentence) and not in_sentence:
            owner = person  # "Samuel ... was not proposed for <the study>. His condition is ...": Samuel's
        sentence_named = any(s_start <= s and e <= s_end for s, e, _ in owners)
        # "<subject> is attached to <other> and is returned": whom a predicate with its subject dropped is about
        opened = _SUBJECT_PRONOUN.match(_LIST_ITEM.sub("", sentence, 1))  # "Her submission ...": whose it is
        predicated = owner or last_named if opened else None  # else the first clause's record, once read
        ruling = False  # a rule stated earlier in the sentence goes on in its later clauses that name no record
        conditional = False  # "...; if it really is a false positive, ...": what follows holds only under it
        blank += _history(plain, s_start, s_end, values, [s for s, _, _ in owners if s_start <= s < s_end])
        for index, (c_start, c_end) in enumerate(clauses):
            clause = plain[c_start:c_end]
            said = [(s, e) for s, e in values if c_start <= s < c_end]
            if misfit and len(said) == 1 and words(answer[slice(*said[0])]) in reading.restated and not (
                    _PRONOUN.search(clause) or any(c_start <= s and e <= c_end for s, e, _ in owners)):
                blank += said  # "so 2026-12-28 doesn't fit": the request's own value, set aside, alone in its clause
            named_here = [ids for s, e, ids in owners if c_start <= s and e <= c_end]
            named_in_brackets = False
            if not named_here and index + 1 < len(clauses) and re.match(r"\s*[(\[]\s*$", answer[c_end:clauses[index + 1][0]]):
                n_start, n_end = clauses[index + 1]  # "Essay Draft (asg-0022)": the label of the record in brackets
                named_here = [ids for s, e, ids in owners if n_start <= s and e <= n_end]
                named_in_brackets = True
            inside_parens = c_start > s_start and (answer[c_start - 1] in "([" or answer.count("(", s_start, c_start)
                                                   > answer.count(")", s_start, c_start))  # "(je-0022, period 2026-10)"
            mine = owner
            if named_here and reading.about:
                previous = [(s, e, ids) for s, e, ids in owners if index and clauses[index - 1][0] <= s < c_start]
                mine = _owner_of(answer, [(s, e, ids) for s, e, ids in owners if c_start <= s and e <= c_end], reading,
                                 previous[-1:]) \
                    if not named_in_brackets else ("about" if any({i.casefold() for i in ids} & reading.about
                                                                  for ids in named_here) else "other")
                if mine == "about" and _describes_subject(answer, clause, [(s, e, ids) for s, e, ids in owners if
                                                                           c_start <= s and e <= c_end],
                                                          in_sentence, reading):
                    mine = "other"  # "cpu-0051 for Bruno Park (lac-0032) - Kubernetes Fundamentals, status requested"
                for ids in named_here:
                    last_named = "about" if {i.casefold() for i in ids} & reading.about else "other"
                    last_of_kind.update((noun, last_named) for i in ids for noun in reading.record_kinds.get(
                        i.casefold(), ()))
                last_of_kind.update((code, mine) for code in _code_words(answer, owners, c_start, c_end))  # "the ECO"
            elif own_column and own_column.search(clause) and reading.about:
                mine = "about"  # "on the NovaSeq 6000. Its QC status is pending": what has a QC status
            elif person and _PERSONAL.search(clause) and not _PRONOUN_OTHER.search(clause) and reading.about:
                mine = person  # "Emma (scl-0002) couldn't be paired with Amara (sty-0005): she's essential tier"
            elif owner is None and reading.about:  # "The date is blank, and her account ...", "I marked the finding"
                mine = _antecedent(clause, last_named if not sentence_named else None, last_of_kind, table_kinds)
            if index and not named_here and _COORDINATED.match(clause):
                mine = predicated  # "Her submission is not late and is already returned": the submission's
            elif not index and not opened:
                predicated = mine  # "That sitting has already taken place and is completed": the sitting's
            if not inside_parens or (named_here and owner is None):  # "Exhibit A (efs-0013) is now rejected"
                owner = mine
            rule = bool(reading.about) and (any(m.group(0).casefold() not in reading.nouns | reading.kinds
                                                for m in _RULE.finditer(clause)) or any(c_start <= s and e <= c_end
                                                                               for s, e in reasons)
                                            or (c_start, c_end) in ruled  # "the rule (judgement_1) is that ..."
                                            or (index and not named_here and _RULE_SENTENCE.match(sentence)
                                                and not answer[s_start:c_start].rstrip().endswith((")", "]")))
                                            or (ruling and not named_here and index
                                                and answer[clauses[index - 1][1]:c_start].strip() == ",")
                                            or (ruling and not named_here and _GUARD.match(clause))  # "only
                                            # possible while a change is in progress": the rule's condition
                                            or (not named_here and _GENERIC.match(clause)))  # "a rollback is"
            if index and _WHICH_IS.match(clause) and (held := _POSSESSED.search(answer, clauses[index - 1][0],
                                                                                   clauses[index - 1][1])):
                rule = False  # "It has to go out on her preferred channel, which is SMS": SMS is hers, not the rule's
                mine = person if held.group(1).casefold() in ("his", "her") and person else owner
            ruling = (ruling or rule) and not named_here  # "; moderate claims need an adjuster, senior or
            # complex_loss": the rule's list, until a clause names a record
            if rule:
                ruled.update(_after_aside(answer, clauses, index))
            hedged = not rule and _hedged(clause, answer, c_start, c_end, values + named + numeric) and not (
                not said and _OR_ACTION.match(clause))  # "toner, or be split down to 2": another action, no value
            supposed = bool(index) and bool(_IF_CLAUSE.match(clause))  # a condition inside a sentence claims nothing,
            conditional = conditional or supposed  # and a value after it holds only under it: "...; if not, it is X"
            hedged = hedged or (conditional and not supposed and any(c_start <= s and e <= c_end for s, e in values))
            for_request = bool(in_sentence) and all({i.casefold() for i in ids} <= reading.requested
                                                    for _, _, ids in in_sentence)  # "the notice for <its parcel>"
            if any(c_start <= s and e <= c_end and not _disowned_rule(answer, c_start, s, e, c_end)
                   for s, e in rule_ids) and not hedged and (mine == "about" or subject == "about" or for_request):
                stated = True  # "Samuel (vol-0028) was not proposed for <the study> (volunteer_condition_matches)"
            dumped = dumped or (mine != "other" and any(c_start <= s and e <= c_end for s, e in foreign))
            if hedged:
                blank.append((s_start, c_end))  # "A, B or C", "A, or B": the alternatives before it too
                doubted = doubted or (mine != "other" and any(  # "It is A or B", "A, or possibly Y": unsure (not
                    (c_start if not _OR_DOUBT.match(clause) or not index else clauses[index - 1][0]) <= s and e <= c_end
                    for s, e in values))  # "pick an hvac tech for 10:00 - or sooner", an "or" with no doubt)
            elif mine == "other" or rule or supposed or _CALLED_WRONG.search(clause):
                blank.append((c_start, c_end))
            else:
                if ahead := _AHEAD.search(clause):  # "a second problem even once it's released": not yet
                    blank.append((c_start + ahead.start(), c_end))
                negator = _NEGATOR.search(clause)
                if negator:
                    blank.append((c_start + negator.start(), c_end))
                    doubted = doubted or (mine != "other" and any(  # "(<rule>): inc-0014 is not resolved"
                        c_start + negator.start() <= s and e <= c_end for s, e in denied))
                    blank += _after_aside(answer, clauses, index)  # "could not mark X (tlb-0058) as processed"
                for verb in _OWN_VERB.finditer(answer, c_start, c_end):  # "I've received": the writer's verb
                    own = [(s, e) for s, e in values if s < verb.end(1) and verb.start(1) < e]
                    blank += own
                blank += [(s, e) for s, e in values if c_start <= s < c_end  # "which other online station"
                          and _ANOTHER_BEFORE.search(answer, max(c_start, s - 12), s)]
                blank += [(s, e) for s, e in values if c_start <= s < c_end and reading.about  # "the HVAC visit"
                          and not answer[s:e].strip().isdigit()  # "4 crew jobs" counts
                          and (kind := re.match(r"[\s-]+([^\W\d_]+)", answer[e:e + 40]))
                          and kind.group(1).casefold() in reading.kinds | reading.heads  # "the email alert for"
                          and not _PREDICATE.search(answer, max(c_start, s - 12), s)  # "lcr-0007 is a gas service crew"
                          and not _apposed(answer, c_start, s, owners)]  # "Crew 41 Gas (lcr-0007), a gas service crew,"
                blank += [(s, e) for s, e in values if c_start <= s < c_end  # "gap-0005, the one declined for ..."
                          and _THE_ONE.search(answer, max(c_start, s - 40), s)]
                blank += [(s, e) for s, e in values if c_start <= s < c_end  # "Not done: draining ci-runner-02"
                          and answer[s:e].casefold().endswith("ing") and _REFUSED.search(answer, s_start, s)
                          and _QUOTES.match(answer, e).end() in {ns for ns, _ in named}]
                blank += [(s, e) for s, e in values if c_start <= s < c_end and (  # "our sampling plan"
                    _OUR.search(answer, max(c_start, s - 8), s) or _BEYOND.search(answer, max(c_start, s - 12), s) or (_WITH_A.search(answer, max(c_start, s - 16), s)
                                                                   and re.match(r"\s+[a-z]", answer[e:e + 2])))]
                # "Skipped marking X as processing error", "putting Sadie (anm-0004) into medical review"
                blank += [(s, e) for s, e in values if c_start <= s < c_end
                          and _TARGET_BEFORE.search(answer, max(c_start, s - 12), s)
                          and change is not None and change.end() <= s]
                blank += [(s, e) for s, e in values if c_start <= s < c_end  # "hvac goes to an hvac technician":
                          and (some := _SOME_A.search(answer, max(c_start, s - 30), s))  # some record of that kind,
                          and some.group(1).casefold() in _SOME_AFTER and re.match(r"\s+[a-z]", answer[e:e + 2])]
                blank += [(s, e) for s, e in values if c_start <= s < c_end and change is not None  # "marking
                          and any(change.end() <= ns and _JUST_AFTER.fullmatch(answer, ne, s)  # AVL-0000005
                                  for ns, ne in named)]  # (apb-0005) processed - it is quarantined": the target
                if (count := _COUNTED.match(answer, c_start, c_end)) and reading.about:  # "two published, one not"
                    blank += [(s, e) for s, e in values if s == count.end()]
                blank += [(s, e) for s, e in values if c_start <= s < c_end and _dated_column(answer, s, e, numeric,
                                                                                          reading.world_words)]
                blank += [(s, e) for s, e in values if c_start <= s < c_end and _inside_phrase(answer, s, e, reading)]
                if c_start == s_start and (dropped := _DROPPED_SUBJECT.match(answer, c_start, c_end)):
                    blank += [(s, e) for s, e in values if s < dropped.end(1) and dropped.start(1) < e]
                if c_start == s_start and (tally := _TALLY.match(answer, c_start, min(c_end + 1, len(answer)))):
                    word = tally.span(1) if tally.group(1) else tally.span(2)
                    if not RECORD_ID.fullmatch(answer, *word):  # "- sgp-0041: confirmed" is a list item, no tally
                        blank += [(s, e) for s, e in values if s < word[1] and word[0] < e]
        owner_before = owner
        if answer[s_start:s_end].rstrip().endswith(":") and not _LIST_ITEM.match(answer, line):
            header = owner  # a line "<record>:" heads the list items under it
    blank += _told_as_events(answer, values, blank, names, numeric, reading.restated)
    # "Lisinopril 10mg tabs": a number inside a record's name is the name's, no figure of the answer's; a name of
    # figures alone ("+1 555 0106") and a value the check reads are written as themselves
    worded = [(ns, ne) for ns, ne, _ in names if re.search(r"[^\W\d_]", answer[ns:ne])]
    inside = [(s, e) for _, s, e in number_spans(answer) if not any(vs < e and s < ve for vs, ve in values)
              and any(ns <= s and e <= ne and (s, e) != (ns, ne) for ns, ne in worded)]
    chars = list(answer)
    for start, end in blank + idents + inside:  # an identifier (a rule's or a tool's) is a word of the system, no value
        chars[start:end] = " " * (end - start)
    return Claims(text="".join(chars), stated_reason=stated and not dumped and not doubted)


def _told_as_events(text: str, values: list[tuple[int, int]], blank: list[tuple[int, int]],
                    names: list[tuple[int, int, frozenset[str]]], numeric: list[tuple[int, int]],
                    restated: frozenset[tuple[str, ...]] = frozenset()) -> list[tuple[int, int]]:
    """Values told as an event, with whom or when ("issued to stf-0020", "approved on 3 Nov", "signed by Ann"): the
    record's history where a state is claimed beside them ("(asn-0015, issued to stf-0020). It was already returned");
    "received yesterday" only in the request's own words (a past state of its own set against now stays a dump);
    alone they are claims, and two of them with no state beside stay a dump."""
    left = [v for v in values if not any(s <= v[0] and v[1] <= e for s, e in blank)]
    starts = {s for s, _, _ in names} | {s for s, _ in numeric}
    events = [(s, e) for s, e in left if (_WHEN_TOLD.match(text, e) and words(text[s:e]) in restated) or ((told := _EVENT_AFTER.match(text, e)) and (
        told.end() in starts or RECORD_ID.match(text, told.end()) or _MONTH_WORD.match(text, told.end())))]
    return events if any(v not in events for v in left) else []


def _owner_of(text: str, named: list[tuple[int, int, frozenset[str]]], reading: Reading,
              before: list[tuple[int, int, frozenset[str]]] = ()) -> str:
    """Whose clause it is, of the records it names: the asked record's if it names it, unless it names it only by
    words ("The other WF-2026-000019 filing", "another FDR-101 outage") and another record by its id in
    brackets, which is one record's whatever the words say, or right beside its words, in either order, in the
    clause or ending the clause `before` it: "cpu-0051 - Kubernetes Fundamentals, status requested" is the new
    row's, whose title the asked record shares."""
    def about(ids: frozenset[str]) -> bool:
        return bool({i.casefold() for i in ids} & reading.about)

    named = [(s, e, frozenset() if about(ids) and _ANOTHER_BEFORE.search(text, max(0, s - 12), s) else ids)
             for s, e, ids in named]  # "the other ECO-0030 change order": not that one

    by_id = [(s, e, ids) for s, e, ids in named if RECORD_ID.fullmatch(text, s, e) and text[s:e].casefold() in
             {i.casefold() for i in ids}]
    if any(about(ids) for _, _, ids in by_id):
        return "about"
    bracketed = [ids for s, _, ids in by_id if re.search(r"[(\[]\s*$", text[max(0, s - 3):s])]
    if any(not about(ids) for ids in bracketed):
        return "other"
    beside = [(s, e) for s, e, ids in [*before, *named] if RECORD_ID.fullmatch(text, s, e) and not about(ids)
              and text[s:e].casefold() in {i.casefold() for i in ids}]
    return "about" if any(about(ids) and not any(_appositive(text, (s, e), i, reading) for i in beside)
                          for s, e, ids in named) else "other"


def _describes_subject(text: str, clause: str, here: list[tuple[int, int, frozenset[str]]],
                       in_sentence: list[tuple[int, int, frozenset[str]]], reading: Reading) -> bool:
    """A clause with no verb of being that names the asked record only by a label several records share, in a
    sentence opening with another record's id: the label describes that record ("a new purchase cpu-0051 for
    Bruno Park (lac-0032) - Kubernetes Fundamentals, status requested"; the asked purchase shares the title)."""
    if not in_sentence or _BEING.search(clause):
        return False
    s, e, ids = in_sentence[0]
    subject_by_id = RECORD_ID.fullmatch(text, s, e) and text[s:e].casefold() in {i.casefold() for i in ids} and not {
        i.casefold() for i in ids} & reading.about
    about = [(s, e, ids) for s, e, ids in here if {i.casefold() for i in ids} & reading.about]
    return bool(subject_by_id) and e <= here[0][0] and all(
        len(ids) > 1 and text[s:e].casefold() not in {i.casefold() for i in ids} for s, e, ids in about)


def _apposed(text: str, start: int, at: int, owners: list[tuple[int, int, frozenset[str]]]) -> bool:
    """A clause opening "a <value>" right after a record's name or id and a comma or dash: what that record is."""
    return bool(re.fullmatch(r"\W*an?\s+", text[start:at])) and any(
        re.fullmatch(r"[\s)\]]*[,\u2013\u2014-]\s*", text[e:start]) for _, e, _ in owners if e <= start)


def _appositive(text: str, label: tuple[int, int], ident: tuple[int, int], reading: Reading) -> bool:
    """A record's words right beside another record's id, joined by punctuation, "for"/"of"/"called" or a noun of a
    kind ("cpu-0051 for Kubernetes Fundamentals", "Kubernetes Fundamentals purchase cpu-0051"): the id's label."""
    gap = text[min(label[1], ident[1]):max(label[0], ident[0])]
    said = words(gap)
    return (label[1] <= ident[0] or ident[1] <= label[0]) and not re.search(r"[.;!?()\[\]\n]", gap) and len(said) <= 3 \
        and all(w in _JOINING or w in reading.nouns or w in reading.kinds for w in said)


def _whose(ids: frozenset[str], reading: Reading) -> str:
    return "about" if {i.casefold() for i in ids} & reading.about else "other"


def _a_person(text: str, reading: Reading) -> bool:
    """A record named as a person is: a first and a last name ("Samuel Novak"), or a first name alone."""
    return bool(_PERSON_NAME.fullmatch(text)) or (text.istitle() and text.casefold() in reading.short)


_AND_PREDICATE = re.compile(r"\s(?=and\s+(?:is|was|are|were|has|have|had)\b)", re.I)


def _and_cuts(text: str, clauses: list[tuple[int, int]],
              owners: list[tuple[int, int, frozenset[str]]]) -> list[tuple[int, int]]:
    """Clauses cut again at an "and" right before a record's name: "VAN-006 has a CCS1 connector and P-13
    (cpt-0013) is a J1772 port" says two things of two records."""
    out = []
    for start, end in clauses:
        cuts = sorted({s for s, _, _ in owners if start < s < end and re.search(r"\s(?:and|while|but)\s+$",
                                                                          text[max(start, s - 7):s])}
                      | {m.start() + 1 for m in _AND_PREDICATE.finditer(text, start, end) if m.start() > start})
        for s in cuts:  # and before a predicate whose subject is dropped: "is not late and is returned"
            out.append((start, s))
            start = s
        out.append((start, end))
    return out


def _code_words(text: str, owners: list[tuple[int, int, frozenset[str]]], start: int, end: int) -> list[str]:
    """The letters a record's code opens with, as staff call the record ("ECO-0002": "the ECO")."""
    codes = [re.match(r"[^\W\d_]+", text[s:e]) for s, e, _ in owners if start <= s and e <= end
             and RECORD_ID.fullmatch(text, s, e)]
    return [w for c in codes if c and len(c.group(0)) >= 2 for w in (c.group(0).casefold(), c.group(0).casefold() + "s")]


def _dated_column(text: str, start: int, end: int, dates: list[tuple[int, int]], world_words: frozenset[str]) -> bool:
    """A value followed by a date, where the world has a date column named for it ("requested 8 Oct" beside
    requested_on): the date's label, not the record's state."""
    gap = _DATE_GAP.match(text, end)
    key = "_".join(words(text[start:end]))
    return bool(gap) and (gap.end() in {s for s, _ in dates} or bool(_DAY_MONTH.match(text, gap.end()))) and any(
        f"{key}_{tail}" in world_words for tail in ("on", "at", "date", "day"))


def _inside_phrase(text: str, start: int, end: int, reading: Reading) -> bool:
    """A value inside a longer value of another column ("editorial" in the usage "web editorial")."""
    before = WORD.findall(text[max(0, start - 40):start])[-3:]
    after = WORD.findall(text[end:end + 40])[:3]
    own = words(text[start:end])
    spans = [tuple(w.casefold() for w in before[i:]) + own + tuple(w.casefold() for w in after[:j])
             for i in range(len(before) + 1) for j in range(len(after) + 1)]
    return any(span != own and span in reading.phrases for span in spans)


def _antecedent(clause: str, last_named: str | None, last_of_kind: dict[str, str],
                kinds: frozenset[str]) -> str | None:
    """The record a clause naming none refers to: the last one named of the kind it calls "the <kind>" ("the
    finding", "the change order", "the ECO"), or another record when no record of that kind other than the
    asked one's was named ("the study targets asthma" about a volunteer), else, with a pronoun in it,
    `last_named` (None in a sentence that names a record)."""
    if _ANOTHER_ONE.search(clause):
        return "other"  # "Another incident is resolved": not the asked one, whatever its kind
    for match in _DEFINITE.finditer(clause):
        said = match.group(1).casefold().split()
        kind = next((w for w in said if w in last_of_kind), None)
        if kind:
            return last_of_kind[kind]
        if any(w in kinds for w in said):
            return "other"
    return last_named if _PRONOUN.search(clause) else None


def _calls_kind(clause: str, kinds: Iterable[str]) -> bool:
    """Whether a clause calls a record "the", "that" or "this" <kind> ("That budget is ..."): _antecedent reads it."""
    return any(w in kinds for m in _DEFINITE.finditer(clause) for w in m.group(1).casefold().split())


def _history(plain: str, start: int, end: int, values: list[tuple[int, int]],
             named: list[int]) -> list[tuple[int, int]]:
    """The values of a sentence that are history, not a claim: a lifecycle in arrows in a sentence naming no record
    before the arrows ("our pipeline is ticket -> PR -> merge -> patched -> verified, and no PR for SEC-0457"),
    every state but the last in arrows after a record ("vfd-0041: new -> triaged -> ticketed"), and a state
    followed by "later" or "then" and another state after a past tense ("asn-0022 was issued on 16 Nov and later
    reported lost"). Module docstring, rule 7."""
    arrows = list(_ARROW.finditer(plain, start, end))
    said = sorted(v for v in values if start <= v[0] and v[1] <= end)
    history: list[tuple[int, int]] = []
    if arrows:
        line_start = max(plain.rfind(c, start, arrows[0].start()) for c in ":;,(")  # the clause the chain opens in
        cut = re.compile(r"[;,()]|\s(?:and|but|so)\s").search(plain, arrows[-1].end(), end)
        chain = [v for v in said if line_start < v[0] and v[1] <= (cut.start() if cut else end)]
        history += chain[:-1] if any(n < arrows[0].start() for n in named) else chain
    past = _PAST.search(plain, start, end)
    if past:
        after = [v for v in said if v[0] >= past.end()]
        history += [v for v, w in pairwise(after) if _LATER.search(plain, v[1], w[0])]
    return history


def _after_aside(text: str, clauses: list[tuple[int, int]], index: int) -> list[tuple[int, int]]:
    """The clause after a bracketed aside that follows clause `index`: it goes on with that clause ("I could not mark
    TB-58 (tlb-0058) as processed"). The aside itself is its own ("not dispatched (it is cancelled)")."""
    if index + 2 >= len(clauses):
        return []
    (_, end), (aside_start, aside_end), after = clauses[index], clauses[index + 1], clauses[index + 2]
    opens = re.fullmatch(r"\s*[(\[]\s*", text[end:aside_start])
    closes = re.fullmatch(r"\s*[)\]]\s*", text[aside_end:after[0]])
    return [after] if opens and closes else []


def _quote_end(text: str, span: tuple[int, int], names: list[tuple[int, int, frozenset[str]]]) -> tuple[int, int]:
    """A quoted rule ("rule ap_1: <its text>") runs to the line's end, or to the clause that names a record: "rule
    x_1: only drafts are routed, and gpr-0006 is already awarded" quotes the rule, then claims about gpr-0006."""
    start, end = span
    first = min((s for s, _, _ in names if start < s < end), default=None)
    if first is None:
        return span
    cuts = [m.start() for m in _CLAUSE_CUT.finditer(text, start, first)]
    return start, (cuts[-1] if cuts else first)


def _disowned_rule(text: str, start: int, id_start: int, id_end: int, end: int) -> bool:
    """A rule's id its clause doubts, denies or calls wrong: "Maybe <id> applies", "It isn't <id>", "not a <id>
    issue", "<id> doesn't apply", "that is not what <id> says"; a refusal's own negation is not the rule's ("Not
    done per <id>", "couldn't book it under <id>": a verb of the work stands between)."""
    clause = text[start:end]
    if _DOUBT.search(clause) or _CALLED_WRONG.search(clause) or _MAY_BREAK.search(clause):
        return True
    before = list(_NEGATOR.finditer(text, start, id_start))
    if before and _RULE_FILLER.fullmatch(text[before[-1].end():id_start]):
        return True
    return bool(_RULE_DENIED.match(text, id_end, end))


def _hedged(clause: str, text: str, start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Alternatives or doubt; an "or" after a negator joins what is denied ("can't be paid or approved")."""
    found = _HEDGE.search(clause)
    if found and found.group(0).lower() == "or":
        negator = _NEGATOR.search(clause)
        found = None if negator and negator.start() < found.start() else found
        found = found or next((m for m in _HEDGE.finditer(clause) if m.group(0).lower() != "or"), None)
    return bool(found) or _slashed(text, start, end, spans)


def _slashed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """A slash between alternatives ("received/approved", "Bob/Alice", "2026-12-08/2026-12-09"), outside a value's
    own words; a plain fraction of numbers ("3/12") is no hedge (a number has one guess: core/guesses.py)."""
    for match in re.finditer(r"\s*/\s*", text[start:end]):
        left, right = start + match.start(), start + match.end()
        if any(s < right and left < e for s, e in spans if not (e == left or s == right)):
            continue  # inside a value, a name or a date of its own ("n/a", "11/13/2026")
        part = re.search(r"(?<![\w.:/-])(\d+)$", text[:left])
        whole = re.match(r"(\d+)(?![\w.:/-])", text[right:])
        if part and whole and int(part.group(1)) < int(whole.group(1)):
            continue  # a part of a whole ("3/12" is 3 of 12: core/guesses.py); "41/40" and "3.5/4.5" are hedges
        touching = any(e == left or s == right for s, e in spans)
        if touching or text[left - 1:left].isalpha() or text[right:right + 1].isalpha():
            return True
    return False


__all__ = [
    "MAX_NAME_WORDS",
    "RECORD_ID",
    "Claims",
    "Reading",
    "leading_words",
    "named_records",
    "named_spans",
    "read",
    "record_names",
    "short_names",
    "singular",
    "table_nouns",
    "words",
]
