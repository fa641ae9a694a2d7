"""Realistic seed values: one function per blueprint `Generator`, all driven by a `random.Random`.

Pools are small on purpose: repeated first names, shared surnames and sibling companies make the
near-duplicate decoys a real workspace has (two "Lam"s, "Harbor Freight Co" and "Harbor Freight
Group"). `near(gen, value, rng)` makes such a decoy from an existing value.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

FIRST_NAMES = (
    "Ana", "Ben", "Chloe", "Daniel", "Elena", "Farid", "Grace", "Hiro", "Isabel", "Jonas", "Keisha", "Liam", "Maya",
    "Noah", "Olivia", "Priya", "Quentin", "Rosa", "Samuel", "Tara", "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe",
    "Aisha", "Bruno", "Carmen", "Dmitri", "Emma", "Felix", "Hannah", "Ivan", "Julia", "Kofi", "Lucia", "Marco",
    "Nina", "Oscar", "Paula", "Rafael", "Sofia", "Tomas", "Valentina", "Mateo", "Leah", "Arjun", "Mei", "Sean",
)
LAST_NAMES = (
    "Ruiz", "Okafor", "Lam", "Novak", "Schmidt", "Haddad", "Kim", "Tanaka", "Moreau", "Lindqvist", "Johnson", "Walsh",
    "Patel", "Costa", "Nguyen", "Fischer", "Rossi", "Mensah", "Kowalski", "Brennan", "Ortiz", "Sato", "Adeyemi",
    "Larsen", "Chen", "Dubois", "Murphy", "Silva", "Weber", "Hansen", "Ibrahim", "Romero", "Park", "Evans", "Yilmaz",
    "Nakamura", "Barros", "Petrov", "Keller", "Morgan",
)
COMPANY_STEMS = (
    "Harbor", "Northwind", "Bluepeak", "Cedar", "Ironbridge", "Lumen", "Maple", "Oakridge", "Pinecrest", "Quarry",
    "Redwood", "Silverline", "Summit", "Tidewater", "Vantage", "Westfield", "Brightwater", "Copperfield", "Evergreen",
    "Granite", "Highland", "Keystone", "Lakeside", "Meridian", "Riverstone", "Stonegate", "Sunridge", "Atlas",
)
COMPANY_KINDS = (
    "Logistics", "Foods", "Analytics", "Builders", "Health", "Labs", "Media", "Outfitters", "Partners", "Software",
    "Supply", "Textiles", "Energy", "Freight", "Dental", "Studio", "Consulting", "Robotics", "Bakery", "Pharma",
)
COMPANY_SUFFIXES = ("Inc", "LLC", "Co", "Ltd", "Group", "GmbH")
CITIES = (
    "Lisbon", "Porto", "Madrid", "Valencia", "Lyon", "Toulouse", "Munich", "Hamburg", "Rotterdam", "Antwerp",
    "Dublin", "Cork", "Edinburgh", "Leeds", "Oslo", "Gothenburg", "Krakow", "Brno", "Vienna", "Zurich", "Turin",
    "Bologna", "Austin", "Denver", "Portland", "Toronto", "Montreal", "Seattle", "Boston", "Chicago", "Melbourne",
    "Auckland", "Osaka", "Seoul", "Singapore", "Nairobi", "Cape Town", "Bogota", "Lima", "Santiago",
)
COUNTRIES = (
    "Portugal", "Spain", "France", "Germany", "Netherlands", "Belgium", "Ireland", "United Kingdom", "Norway",
    "Sweden", "Poland", "Czechia", "Austria", "Switzerland", "Italy", "United States", "Canada", "Australia",
    "New Zealand", "Japan", "South Korea", "Singapore", "Kenya", "South Africa", "Colombia", "Peru", "Chile",
)
STREET_NAMES = (
    "Oak", "Maple", "Harbor", "Mill", "Station", "Church", "River", "Park", "Elm", "Bridge", "King", "Queen",
    "Market", "Garden", "Willow", "Chestnut", "High", "Lake", "Orchard", "Cedar",
)
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Way", "Boulevard", "Place", "Court")
WORDS = (
    "atlas", "beacon", "cobalt", "delta", "ember", "falcon", "garnet", "harbor", "indigo", "juniper", "kestrel",
    "lantern", "meadow", "nimbus", "onyx", "pioneer", "quartz", "raven", "sierra", "tundra", "umber", "vertex",
    "willow", "zephyr", "aurora", "birch", "canyon", "dune", "echo", "fjord",
)
TITLE_SUBJECTS = (
    "Quarterly budget", "Onboarding plan", "Vendor contract", "Website redesign", "Safety audit", "Inventory count",
    "Client kickoff", "Pricing update", "Data migration", "Training schedule", "Office move", "Holiday rota",
    "Marketing brief", "Support backlog", "Release checklist", "Insurance renewal", "Hiring pipeline",
    "Customer survey", "Fleet maintenance", "Menu refresh", "Grant application", "Security review",
)
TITLE_KINDS = ("review", "draft", "proposal", "summary", "plan", "follow-up", "notes", "request", "report", "update")
SENTENCE_OPENERS = (
    "Customer asked about", "Please double-check", "Waiting on confirmation for", "Follow up next week on",
    "Flagged during the review:", "Agreed on the call:", "Reminder about", "Needs sign-off for",
    "Updated after feedback on", "Left a voicemail regarding", "Escalated to the team lead:", "No action needed on",
)
SENTENCE_TOPICS = (
    "the delivery window", "the revised quote", "the second invoice", "the room booking", "the missing paperwork",
    "the contract renewal", "the weekend shift", "the damaged item", "the payment terms", "the new supplier",
    "the schedule change", "the refund request", "the access badge", "the allergy note", "the shipping address",
    "the late fee", "the warranty claim", "the training slot", "the budget overrun", "the follow-up visit",
)
PRODUCT_ADJECTIVES = (
    "Ceramic", "Bamboo", "Stainless", "Wireless", "Organic", "Compact", "Ergonomic", "Insulated", "Recycled",
    "Heavy-duty", "Foldable", "Waterproof", "Cordless", "Premium", "Classic", "Portable",
)
PRODUCT_NOUNS = (
    "Mug", "Desk Lamp", "Water Bottle", "Notebook", "Backpack", "Cutting Board", "Headphones", "Office Chair",
    "Tea Kettle", "Yoga Mat", "Monitor Stand", "Throw Blanket", "Garden Hose", "Drill Set", "Lunch Box", "Keyboard",
    "Phone Case", "Travel Pillow", "Skillet", "Storage Bin",
)
PRODUCT_VARIANTS = ("XL", "Mini", "Pro", "2-pack", "Large", "Small", "v2", "Refill")
COLORS = ("black", "white", "navy", "forest green", "charcoal", "sand", "red", "sky blue", "olive", "burgundy",
          "slate gray", "mustard", "teal", "coral", "ivory")
TAGS = ("urgent", "vip", "follow-up", "billing", "new", "renewal", "priority", "backlog", "internal", "external",
        "review", "blocked", "seasonal", "bulk", "fragile", "remote", "onsite", "recurring")
JOB_TITLES = (
    "Account Manager", "Operations Lead", "Software Engineer", "Data Analyst", "Office Manager", "Nurse Practitioner",
    "Sales Associate", "Product Designer", "Support Specialist", "Finance Controller", "HR Generalist",
    "Warehouse Supervisor", "Project Manager", "Marketing Coordinator", "Legal Counsel", "Site Engineer",
    "Customer Success Manager", "Procurement Officer", "Research Scientist", "Dispatcher",
)
DEPARTMENTS = ("Sales", "Operations", "Engineering", "Finance", "Marketing", "Human Resources", "Customer Support",
               "Legal", "Procurement", "Research", "Facilities", "Logistics", "Product", "Quality")
EMAIL_DOMAINS = ("mailbox.org", "fastmail.com", "proton.me", "outlook.com", "gmail.com", "posteo.net")
TLDS = ("com", "io", "co", "net", "org")


def person_name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def first_name(rng: random.Random) -> str:
    return rng.choice(FIRST_NAMES)


def company(rng: random.Random) -> str:
    roll = rng.random()
    stem, kind = rng.choice(COMPANY_STEMS), rng.choice(COMPANY_KINDS)
    if roll < 0.4:
        return f"{stem} {kind}"
    if roll < 0.8:
        return f"{stem} {kind} {rng.choice(COMPANY_SUFFIXES)}"
    return f"{rng.choice(LAST_NAMES)} & {rng.choice(LAST_NAMES)} {kind}"


def city(rng: random.Random) -> str:
    return rng.choice(CITIES)


def country(rng: random.Random) -> str:
    return rng.choice(COUNTRIES)


def street(rng: random.Random) -> str:
    return f"{rng.randint(2, 240)} {rng.choice(STREET_NAMES)} {rng.choice(STREET_KINDS)}"


def phone(rng: random.Random) -> str:
    return f"+1 {rng.randint(201, 989)}-555-{rng.randint(100, 199):04d}"


def email(rng: random.Random) -> str:
    return email_for(person_name(rng), rng)


def word(rng: random.Random) -> str:
    return rng.choice(WORDS)


def title(rng: random.Random) -> str:
    return f"{rng.choice(TITLE_SUBJECTS)} {rng.choice(TITLE_KINDS)}"


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(SENTENCE_OPENERS)} {rng.choice(SENTENCE_TOPICS)}."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(2, 4)))


def product(rng: random.Random) -> str:
    return f"{rng.choice(PRODUCT_ADJECTIVES)} {rng.choice(PRODUCT_NOUNS)}"


def color(rng: random.Random) -> str:
    return rng.choice(COLORS)


def sku(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(3))
    return f"{letters}-{rng.randint(1000, 9999)}"


def code(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))


def url(rng: random.Random) -> str:
    return f"https://{rng.choice(COMPANY_STEMS).lower()}.example.{rng.choice(TLDS)}/{rng.choice(WORDS)}"


def tag(rng: random.Random) -> str:
    return rng.choice(TAGS)


def job_title(rng: random.Random) -> str:
    return rng.choice(JOB_TITLES)


def department(rng: random.Random) -> str:
    return rng.choice(DEPARTMENTS)


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "person_name": person_name, "first_name": first_name, "company": company, "city": city, "country": country,
    "street": street, "phone": phone, "email": email, "word": word, "title": title, "sentence": sentence,
    "paragraph": paragraph, "product": product, "color": color, "sku": sku, "code": code, "url": url, "tag": tag,
    "job_title": job_title, "department": department,
}


def generate(gen: str, rng: random.Random) -> str:
    return GENERATORS[gen](rng)


def email_for(name: str, rng: random.Random, domain: str | None = None) -> str:
    """ana.ruiz@fastmail.com from "Dr. Ana Ruiz"; `domain` (e.g. from a company) wins over the pool."""
    parts = [p for p in re.split(r"[^a-z0-9]+", name.lower()) if p and p not in ("dr", "mr", "mrs", "ms", "prof")]
    local = ".".join(parts[:2] if len(parts) > 1 else parts or ["contact"])
    return f"{local}@{domain or rng.choice(EMAIL_DOMAINS)}"


def domain_for(company_name: str) -> str:
    words = [w for w in re.split(r"[^a-z0-9]+", company_name.lower()) if w and w not in ("inc", "llc", "co", "ltd", "gmbh")]
    return "".join(words[:2]) + ".com" if words else "example.com"


def near(gen: str, value: str, rng: random.Random) -> str:
    """A plausible near-duplicate of `value`: the decoy an agent must tell apart from the real one."""
    if gen == "person_name" and " " in value:
        first, last = value.split(" ", 1)
        return f"{first} {rng.choice(LAST_NAMES)}" if rng.random() < 0.5 else f"{rng.choice(FIRST_NAMES)} {last}"
    if gen == "company":
        stem = " ".join(value.split()[:2])
        return f"{stem} {rng.choice(COMPANY_SUFFIXES)}" if not value.endswith(COMPANY_SUFFIXES) else stem
    if gen == "product":
        return f"{value} {rng.choice(PRODUCT_VARIANTS)}"
    if gen == "title":
        return rng.choice((f"{value} (revised)", f"Re: {value}", f"{value} v2", f"Draft {value.lower()}"))
    return value
