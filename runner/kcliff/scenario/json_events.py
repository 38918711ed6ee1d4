"""kcliff's built-in payload: JSON events such as an online shop's services send (page views, carts,
orders, payments, shipments, support messages), made from a fixed seed so every run, machine and tool
sends the very same bytes (docs/measurements.md, "Payloads").

What makes them compress as service events do, and random letters do not: every event repeats the
same keys, enums and id prefixes, its ids and timestamps are partly random, and some carry free text
from a word list. Sizes spread around a median (lognormal, as real event sizes are skewed: a few
orders with many items are several times the typical page view), clipped to [MIN_SHARE, MAX_SHARE] x
the median; each event is filled to its drawn size exactly with more items or more text.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

SEED = 29  # issue #29: any fixed number does; changing it changes every json-events run's settings hash
RECORDS = 10_000  # enough that batches of 64 KiB drawn at random from them rarely hold one twice
MAX_FILE_BYTES = 16 * 2 ** 20  # fewer records of large events: both tools keep them all in memory
SIZE_SIGMA = 0.45  # lognormal spread: with MIN_SHARE/MAX_SHARE, a 700 B median spans about 210 B-2.1 KB
MIN_SHARE, MAX_SHARE = 0.3, 3.0
SMALLEST_MEDIAN = 256  # an event's ids and timestamps alone take about 350 bytes
LARGEST_MEDIAN = 65_536  # MAX_SHARE of it stays well within a request (max.request.size, 1 MiB)
START = datetime(2026, 11, 2, 8, 0, tzinfo=timezone.utc)

_WORDS = (
    "the of and to a in is it you that he was for on are with as his they be at one have this from or had by "
    "but some what there we can out other were all your when up use word how said an each she which do their "
    "time if will way about many then them would write like so these her long make thing see him two has look "
    "more day could go come did my sound no most number who over know water than call first people may down side "
    "been now find any new work part take get place made live where after back little only round man year came "
    "show every good me give our under name very through just form much great think say help low line before "
    "turn cause same mean differ move right boy old too does tell sentence set three want air well also play "
    "small end put home read hand port large spell add even land here must big high such follow act why ask men "
    "change went light kind off need house picture try us again animal point mother world near build self earth "
    "father order delivery package arrived late please refund size colour wrong item box damaged thanks customer "
    "support address door leave neighbour gift wrap invoice discount code coupon return label exchange store"
).split()
# Zipf-like weights, cumulated once: a few words are most of any text, as in real messages
_CUMULATIVE = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(_WORDS))))

_SERVICES = ("web-frontend", "cart-service", "checkout-service", "payment-service", "fulfilment-service",
             "support-desk")
_COUNTRIES = ("DE", "FR", "NL", "GB", "ES", "IT", "PL", "SE", "US", "CA")
_CURRENCIES = {"DE": "EUR", "FR": "EUR", "NL": "EUR", "ES": "EUR", "IT": "EUR", "GB": "GBP", "PL": "PLN",
               "SE": "SEK", "US": "USD", "CA": "CAD"}
_CITIES = ("Berlin", "Hamburg", "Paris", "Lyon", "Amsterdam", "London", "Madrid", "Milan", "Warsaw",
           "Stockholm", "Seattle", "Toronto")
_STREETS = ("Main Street", "Station Road", "Hauptstrasse", "Rue de la Paix", "Kerkstraat", "High Street",
            "Calle Mayor", "Via Roma")
_PAGES = ("/", "/search", "/category/shoes", "/category/outdoor", "/category/kitchen", "/product/{sku}",
          "/cart", "/checkout", "/account/orders", "/help/returns")
_DEVICES = ("desktop", "mobile", "tablet")
_BROWSERS = ("chrome", "safari", "firefox", "edge", "samsung")
_SEGMENTS = ("new", "returning", "loyal", "vip", "at-risk")
_METHODS = ("card", "paypal", "klarna", "sepa", "apple_pay", "gift_card")
_BRANDS = ("visa", "mastercard", "amex")
_CARRIERS = ("dhl", "ups", "dpd", "postnl", "royal-mail", "fedex")
_CHANNELS = ("email", "chat", "phone", "web-form")
_PRODUCTS = ("trail running shoe", "rain jacket", "cast iron pan", "coffee grinder", "wool socks",
             "camping stove", "chef knife", "yoga mat", "water bottle", "backpack 30l", "head torch",
             "linen shirt", "desk lamp", "tea kettle", "cutting board")


class _Draw:
    """The seeded choices one event is made of."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: tuple[str, ...]) -> str:
        return options[self.rng.randrange(len(options))]

    def hex(self, digits: int) -> str:
        return f"{self.rng.getrandbits(4 * digits):0{digits}x}"

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"

    def sku(self) -> str:
        return f"SKU-{self.rng.randrange(10_000, 60_000)}"

    def amount(self, low: float, high: float) -> str:
        return f"{self.rng.uniform(low, high):.2f}"  # as services send money: a decimal string, never a float

    def text(self, length: int) -> str:
        """Words from the list, exactly `length` characters."""
        words: list[str] = []
        size = -1
        while size < length:  # words average 4-5 letters: a fifth of the length in words is rarely short
            more = self.rng.choices(_WORDS, cum_weights=_CUMULATIVE, k=length // 5 + 1)
            words += more
            size += sum(len(w) + 1 for w in more)
        return " ".join(words)[:length].rstrip().ljust(length, ".")

    def item(self) -> dict[str, Any]:
        return {"sku": self.sku(), "name": self.pick(_PRODUCTS), "qty": self.rng.choice((1, 1, 1, 2, 3)),
                "unit_price": self.amount(3, 180)}

    def address(self, country: str) -> dict[str, Any]:
        return {"street": f"{self.rng.randrange(1, 200)} {self.pick(_STREETS)}", "city": self.pick(_CITIES),
                "postal_code": f"{self.rng.randrange(10_000, 99_999)}", "country": country}


# Each kind of event: its share of the stream, what it is made of, the list that grows when it is
# drawn larger (with what one more entry is) and the free-text field that takes the last bytes.
_Maker = Callable[[_Draw, str], dict[str, Any]]


def _page_view(d: _Draw, country: str) -> dict[str, Any]:
    return {"session_id": d.hex(24), "user_id": None if d.rng.random() < 0.3 else f"u-{d.rng.randrange(10**7)}",
            "page": d.pick(_PAGES).format(sku=d.sku()), "referrer": d.pick(("google", "newsletter", "direct", "ads")),
            "device": {"type": d.pick(_DEVICES), "browser": d.pick(_BROWSERS),
                       "viewport": {"w": d.rng.choice((390, 768, 1280, 1440, 1920)),
                                    "h": d.rng.choice((844, 1024, 900))}},
            "locale": f"{country.lower()}-{country}", "impressions": [], "search_query": ""}


def _cart(d: _Draw, country: str) -> dict[str, Any]:
    return {"cart_id": d.uuid(), "user_id": f"u-{d.rng.randrange(10**7)}", "item": d.item(),
            "currency": _CURRENCIES[country],
            "source": d.pick(("product_page", "recommendation", "search", "wishlist")),
            "recommendations": [], "note": ""}


def _order(d: _Draw, country: str) -> dict[str, Any]:
    return {"order_id": f"ORD-2026-{d.rng.randrange(10**8):08d}",
            "customer": {"id": f"c-{d.rng.randrange(10**7)}", "segment": d.pick(_SEGMENTS), "country": country},
            "items": [d.item()], "currency": _CURRENCIES[country],
            "totals": {"subtotal": d.amount(10, 400), "tax": d.amount(1, 60), "shipping": d.amount(0, 12),
                       "total": d.amount(12, 470)},
            "shipping_address": d.address(country), "payment_method": d.pick(_METHODS), "notes": ""}


def _payment(d: _Draw, country: str) -> dict[str, Any]:
    return {"payment_id": f"pay_{d.hex(20)}", "order_id": f"ORD-2026-{d.rng.randrange(10**8):08d}",
            "amount": d.amount(12, 470), "currency": _CURRENCIES[country], "method": d.pick(_METHODS),
            "card": {"brand": d.pick(_BRANDS), "last4": f"{d.rng.randrange(10_000):04d}",
                     "exp": f"{d.rng.randrange(1, 13):02d}/{d.rng.randrange(27, 32)}"},
            "status": d.pick(("authorized", "authorized", "authorized", "declined", "pending_3ds")),
            "risk": {"score": round(d.rng.random(), 3), "decision": d.pick(("accept", "accept", "review"))},
            "risk_rules": [],
            "description": ""}


def _shipment(d: _Draw, country: str) -> dict[str, Any]:
    return {"shipment_id": f"shp_{d.hex(16)}", "order_id": f"ORD-2026-{d.rng.randrange(10**8):08d}",
            "carrier": d.pick(_CARRIERS), "tracking_number": f"{d.rng.randrange(10**11, 10**12)}",
            "warehouse": f"WH-{d.pick(_COUNTRIES)}-{d.rng.randrange(1, 6)}", "address": d.address(country),
            "parcels": [], "instructions": ""}


def _support(d: _Draw, country: str) -> dict[str, Any]:
    return {"ticket_id": f"T-{d.rng.randrange(10**6, 10**7)}", "customer_id": f"c-{d.rng.randrange(10**7)}",
            "channel": d.pick(_CHANNELS), "priority": d.pick(("low", "normal", "normal", "high")),
            "subject": d.text(d.rng.randrange(16, 48)), "tags": [], "body": ""}


def _impression(d: _Draw) -> Any:
    return {"sku": d.sku(), "position": d.rng.randrange(1, 40), "price": d.amount(3, 180)}


def _rule(d: _Draw) -> Any:
    return {"rule": d.pick(("velocity", "geo_mismatch", "new_device", "amount_spike", "bin_country")),
            "hit": d.rng.random() < 0.2}


def _parcel(d: _Draw) -> Any:
    return {"parcel_id": d.hex(12), "weight_g": d.rng.randrange(80, 9000), "items": [d.item()]}


def _tag(d: _Draw) -> Any:
    return d.pick(("refund", "late", "damaged", "address", "invoice", "return", "size", "vip"))


_KINDS: tuple[tuple[str, float, _Maker, str, Callable[[_Draw], Any], str], ...] = (
    ("page.viewed", 0.35, _page_view, "impressions", _impression, "search_query"),
    ("cart.item_added", 0.15, _cart, "recommendations", _impression, "note"),
    ("order.created", 0.20, _order, "items", lambda d: d.item(), "notes"),
    ("payment.authorized", 0.15, _payment, "risk_rules", _rule, "description"),
    ("shipment.dispatched", 0.10, _shipment, "parcels", _parcel, "instructions"),
    ("support.message", 0.05, _support, "tags", _tag, "body"),
)
_TEXT_PER_EVENT = 360  # at most this much free text before one more list entry is added


def _encoded(event: dict[str, Any]) -> bytes:
    # compact, as services' serializers (Jackson, encoding/json) write events
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()


def event(rng: random.Random, seq: int, size: int) -> bytes:
    """One event of about `size` bytes (exactly, unless its skeleton alone is larger)."""
    d = _Draw(rng)
    name, _, make, grows, entry, text_field = rng.choices(_KINDS, [k[1] for k in _KINDS])[0]
    country = d.pick(_COUNTRIES)
    when = START + timedelta(milliseconds=seq * 137 + rng.randrange(137))
    body = make(d, country)
    doc = {"event_id": d.uuid(), "event_type": name, "schema_version": 3,
           "occurred_at": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
           "producer": _SERVICES[[k[0] for k in _KINDS].index(name)], "trace_id": d.hex(32), "data": body}
    length = len(_encoded(doc))
    while length < size - _TEXT_PER_EVENT:
        more = entry(d)
        grown = len(_encoded(more)) + (1 if body[grows] else 0)  # the entry and its comma
        if length + grown > size:  # it would overshoot: free text fills what is left instead
            break
        body[grows].append(more)
        length += grown
    left = size - length
    if left > 0:
        body[text_field] = d.text(left)
    return _encoded(doc)


def sizes(rng: random.Random, median: int, count: int) -> list[int]:
    """`count` event sizes, lognormal around `median`, clipped to [MIN_SHARE, MAX_SHARE] x median."""
    low, high = math.ceil(MIN_SHARE * median), math.floor(MAX_SHARE * median)
    return [min(high, max(low, round(rng.lognormvariate(math.log(median), SIZE_SIGMA)))) for _ in range(count)]


def count(median: int) -> int:
    """How many events a payload of this median holds: RECORDS, fewer where they would pass MAX_FILE_BYTES."""
    return max(100, min(RECORDS, MAX_FILE_BYTES // (2 * median)))


def generate(median: int, records: int | None = None, seed: int = SEED) -> list[bytes]:
    """The events: the same bytes for the same arguments, on any machine (Python's Random is stable)."""
    records = count(median) if records is None else records
    rng = random.Random(f"{seed}:{median}")
    return [event(rng, seq, size) for seq, size in enumerate(sizes(rng, median, records))]
