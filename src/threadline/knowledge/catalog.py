"""Structured product data for the tool node: stored catalogs, filters, comparisons.

A catalog is a JSON file `{"products": [...]}` ingested like a document. The
tool node queries it with typed arguments; each product it returns is a
citable source, the same way a retrieved chunk is.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from threadline.store import files
from threadline.text import fold
from threadline.text.lexicons import en
from threadline.unique_json import loads_unique

_LOGGER = logging.getLogger("threadline.catalog")
_NAME = re.compile(r"[^a-z0-9_-]+")
_UNITS = {
    "weight_kg": "kg",
    "battery_mah": "mAh",
    "battery_hours": "hours",
    "storage_gb": "GB",
    "ram_gb": "GB",
    "camera_mp": "MP",
}


def spec_label(key: str) -> str:
    """`battery_mah` → `battery`: the spec's name without its unit."""
    label = key
    for unit in ("_kg", "_mah", "_hours", "_gb", "_mp", "_usd", "_years"):
        label = label.removesuffix(unit)
    return label.replace("_", " ")


def _years(value: float) -> str:
    """`1` → "1 year", `2` → "2 years": a warranty's length as read aloud."""
    return f"{value} year" if value == 1 else f"{value} years"


def tenant_folder(tenant: str) -> str:
    """Return the folder of a tenant's catalogs: one per tenant, exactly.

    A tenant that is already a safe folder name keeps it (so existing folders stay
    found); any other (capitals, other characters) gets a readable part plus a hash of
    the exact name, so "Acme" and "acme", or "a/b" and "a-b", never share a catalog.
    """
    if tenant and _NAME.sub("-", tenant) == tenant and not tenant.startswith("-"):
        return tenant
    readable = _NAME.sub("-", tenant.lower()).strip("-")[:40] or "tenant"
    return f"{readable}-{hashlib.sha256(tenant.encode('utf-8')).hexdigest()[:16]}"


def is_catalog_payload(payload: Any) -> bool:
    """Tell whether a payload is a catalog: an object whose products have a name and a price."""
    if not isinstance(payload, dict) or not isinstance(payload.get("products"), list):
        return False
    return all(
        isinstance(p, dict) and isinstance(p.get("name"), str) and "price_usd" in p
        for p in payload["products"]
    )


@dataclass(frozen=True)
class Product:
    """One catalog entry."""

    id: str
    name: str
    brand: str
    category: str
    price_usd: float
    specs: dict[str, Any]
    highlights: str
    catalog: str
    release_year: int | None = None
    # A number as the catalog gave it: 2, or 1.5 for eighteen months.
    warranty_years: int | float | None = None

    def spec_number(self, key: str) -> float | None:
        """Return a spec (or `price_usd`, `release_year`, `warranty_years`) as a number, if numeric.

        Text specs give their first number: `6.6" Super AMOLED` → 6.6 (the screen size).
        """
        if key in ("price_usd", "release_year", "warranty_years"):
            value = getattr(self, key)
        else:
            value = self.specs.get(key)
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, int | float):
            return float(value)
        match = re.search(r"\d+(?:\.\d+)?", str(value))
        return float(match.group(0)) if match else None

    def has_spec(self, key: str) -> bool:
        """Whether the catalog states `key` for this product (the price it always does)."""
        if key in ("price_usd", "release_year", "warranty_years"):
            return getattr(self, key) is not None
        return self.specs.get(key) is not None

    def spec_line(self, keys: list[str] | None = None) -> str:
        """One sentence with the price and the given specs (all of them by default)."""
        keys = list(self.specs) if keys is None else keys
        shown = [f"{spec_label(k)}: {self.spec_text(k)}" for k in keys]
        return (
            f"{self.name} ({self.brand} {self.category}): "
            + "; ".join([f"price: ${self.price_usd:,.0f}", *shown])
            + "."
        )

    def spec_text(self, key: str) -> str:
        """Return a spec's value as shown to a reader, with its unit."""
        if key == "price_usd":
            return f"${self.price_usd:,.0f}"
        if key in ("release_year", "warranty_years"):
            value = getattr(self, key)
            return _years(value) if key == "warranty_years" else str(value)
        value = self.specs.get(key)
        unit = _UNITS.get(key)
        return f"{value} {unit}" if unit and isinstance(value, int | float) else str(value)

    def describe(self) -> str:
        """Return a factual sentence block built only from the structured fields."""
        specs = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in self.specs.items())
        parts = [f"{self.name} ({self.brand} {self.category}) costs ${self.price_usd:,.0f}."]
        if specs:
            parts.append(f"Specs: {specs}.")
        if self.highlights:
            parts.append(self.highlights.rstrip(".") + ".")
        if self.warranty_years:
            parts.append(f"Warranty: {_years(self.warranty_years)}.")
        return " ".join(parts)


_FolderSignature = tuple[tuple[str, int, int, int], ...]


def _signature(files: list[Path]) -> _FolderSignature:
    """Identify the files' contents without reading them: name, size, mtime, inode."""
    found = []
    for file in files:
        try:
            stat = file.stat()
        except FileNotFoundError:  # deleted since the listing
            continue
        found.append((file.name, stat.st_size, stat.st_mtime_ns, stat.st_ino))
    return tuple(found)


class CatalogError(ValueError):
    """A catalog a turn could not read: its message names the product and the field."""


PRICE_RANGE_USD = (0.0, 1e9)
"""A price a product can have, in dollars: none is negative, none costs a billion."""
RELEASE_YEARS = range(1000, 10000)
"""A release year is a year written in four digits."""
WARRANTY_YEARS = (0.0, 100.0)
"""A warranty lasts from none to a century."""
SPEC_MAGNITUDE = 1e15
"""The largest numeric spec: a float holds every integer up to it, and prints it in digits."""


def _number(
    raw: dict[str, Any], key: str, *, required: bool, within: tuple[float, float]
) -> float | None:
    value: Any = raw.get(key)
    if value is None and not required:
        return None
    try:
        if isinstance(value, bool) or value is None:
            raise ValueError
        number = float(value)
    except OverflowError:  # an integer past a float's range: past every bound, on its side
        number = math.inf if value > 0 else -math.inf
    except (TypeError, ValueError):
        raise CatalogError(f"{key} must be a number, not {json.dumps(value)[:40]}") from None
    if math.isnan(number):
        raise CatalogError(f"{key} must be a finite number")
    low, high = within
    if number < low:
        raise CatalogError(f"{key} must not be {'negative' if low == 0 else f'below {low:g}'}")
    if number > high:
        raise CatalogError(f"{key} must be at most {high:,.0f}")
    return number


def _check_spec_numbers(specs: dict[str, Any]) -> None:
    """Refuse a numeric spec a turn could not compare or print (a turn reads it as a float)."""
    for key, value in specs.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        # Compared before any float conversion: a 400-digit integer has no float.
        if abs(value) > SPEC_MAGNITUDE or not math.isfinite(value):
            raise CatalogError(
                f"specs.{str(key)[:40]} must be a finite number of at most {SPEC_MAGNITUDE:g}"
            )


def _plain(number: float) -> int | float:
    """Return a whole number as an int, so it reads "2 years", not "2.0 years"."""
    return int(number) if number.is_integer() else number


def _product(raw: Any, catalog: str) -> Product:
    if not isinstance(raw, dict):
        raise CatalogError("a product must be an object")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatalogError("name must be a non-empty text")
    specs = raw.get("specs") or {}
    if not isinstance(specs, dict):
        raise CatalogError("specs must be an object")
    _check_spec_numbers(specs)
    release_year = _number(
        raw, "release_year", required=False, within=(RELEASE_YEARS.start, RELEASE_YEARS.stop - 1)
    )
    if release_year is not None and not release_year.is_integer():
        raise CatalogError("release_year must be a whole number")
    warranty_years = _number(raw, "warranty_years", required=False, within=WARRANTY_YEARS)
    # A negative price would be "the cheapest" and "under $100" to every turn, quoted as
    # "$-50"; one of 1e308 dollars prints as a 309-digit number.
    price_usd = _number(raw, "price_usd", required=True, within=PRICE_RANGE_USD) or 0.0
    return Product(
        id=str(raw.get("id") or name),
        name=name,
        brand=str(raw.get("brand", "")),
        category=str(raw.get("category", "")),
        price_usd=price_usd,
        specs=specs,
        highlights=str(raw.get("highlights", "")),
        catalog=catalog,
        release_year=None if release_year is None else int(release_year),
        # Stored as the number read, not the raw value: "2" (text) is 2 years.
        warranty_years=None if warranty_years is None else _plain(warranty_years),
    )


def products_of(payload: Any, catalog: str) -> list[Product]:
    """Return a catalog's products, each checked as the tool node reads it.

    Checked when a catalog is saved, so one a turn could not read is refused at
    ingestion with what is wrong, instead of failing every later turn of its tenant.

    Raises:
        CatalogError: naming the first product that is not readable and why.
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("products"), list):
        raise CatalogError('a catalog is an object with a "products" list')
    products = []
    for number, raw in enumerate(payload["products"], start=1):
        try:
            products.append(_product(raw, catalog))
        except CatalogError as exc:
            raise CatalogError(f"product {number}: {exc}") from None
    return products


def _read_products(file: Path) -> list[Product]:
    """Return the products of one catalog file."""
    return products_of(loads_unique(file.read_text(encoding="utf-8")), file.stem)


def _readable(file: Path) -> list[Product]:
    """Return the products of one catalog file; none (and an error line) if it is damaged.

    `save` writes only readable catalogs, atomically; a file damaged since (cut short
    by a full disk, edited by hand) must cost its own products, not every turn of its
    tenant (each turn reads the products). It is left in place for whoever repairs
    it, and read again once it changes.
    """
    try:
        return _read_products(file)
    except FileNotFoundError:  # deleted since the listing
        return []
    except (OSError, ValueError) as exc:
        _LOGGER.error("catalog %s is damaged, its products are left out: %s", file, exc)
        return []


class Catalog:
    """Catalogs saved per tenant under a directory.

    Every turn looks at the tenant's products (brand names route a turn to the
    tools), so the parsed products are kept per tenant. A write through `save`
    drops them, and each call compares the files' name, size, mtime and inode with
    what was parsed, so a catalog written by another process is seen too: a call
    with nothing changed stats the files and reads none.
    """

    def __init__(self, root: Path) -> None:
        """Use `root` (created lazily) to keep catalogs."""
        self._root = root
        self._lock = threading.Lock()
        self._parsed: dict[str, tuple[_FolderSignature, list[Product]]] = {}

    def _dir(self, tenant: str) -> Path:
        return self._root / tenant_folder(tenant)

    def save(self, tenant: str, name: str, payload: dict[str, Any]) -> str:
        """Store a catalog atomically; returns its name.

        Raises:
            CatalogError: If a product is not readable (see `products_of`); nothing is
                written then.
        """
        clean = _NAME.sub("-", name.lower()).strip("-") or "catalog"
        products_of(payload, clean)
        folder = self._dir(tenant)
        files.ensure_dir(folder)
        data = json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8")
        with self._lock:
            # As the session store writes: a failed write (a full disk) leaves no temp
            # file, and the rename is durable once the directory is fsynced.
            files.atomic_write(folder / f"{clean}.json", data)
            files.fsync_dir(folder)
            self._parsed.pop(tenant, None)
        return clean

    def products(self, tenant: str) -> list[Product]:
        """Every product of the tenant's catalogs (parsed again only when a file changed)."""
        folder = self._dir(tenant)
        if not folder.is_dir():
            return []
        # Hidden files are `save`'s temporary files, maybe half written.
        files = [f for f in sorted(folder.glob("*.json")) if not f.name.startswith(".")]
        signature = _signature(files)
        with self._lock:
            kept = self._parsed.get(tenant)
        if kept is not None and kept[0] == signature:
            return list(kept[1])
        # Stat before reading: content newer than the signature only makes the next
        # call read again, never keeps stale products.
        listed = {name for name, *_ in signature}
        found = [product for file in files if file.name in listed for product in _readable(file)]
        with self._lock:
            self._parsed[tenant] = (signature, found)
        return list(found)

    def search(
        self,
        tenant: str,
        *,
        category: str | None = None,
        brand: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        text: str | None = None,
        line: str | None = None,
        os: str | None = None,
    ) -> list[Product]:
        """Filter products; sorted by price, cheapest first.

        `line` is a product line, a word of the products' names ("Galaxy", "ThinkPad");
        `os` an operating system its `os` spec starts with ("Android 14", "iOS").
        """
        hits = []
        for product in self.products(tenant):
            if category and fold(product.category) != fold(category):
                continue
            if brand and fold(product.brand) != fold(brand):
                continue
            if line and fold(line) not in fold(product.name).split():
                continue
            if min_price is not None and product.price_usd < min_price:
                continue
            if max_price is not None and product.price_usd > max_price:
                continue
            if text and fold(text) not in fold(f"{product.name} {product.highlights}"):
                continue
            if os and not runs(product, os):
                continue
            hits.append(product)
        return sorted(hits, key=lambda p: (p.price_usd, p.name))

    def rank(
        self,
        tenant: str,
        *,
        spec: str,
        order: str = "desc",
        category: str | None = None,
        limit: int = 3,
        names: list[str] | None = None,
        min_value: float | None = None,
        max_value: float | None = None,
        exclusive: bool = False,
        os: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        brand: str | None = None,
    ) -> list[Product]:
        """Products that have `spec`, best first (`asc`: smallest value first).

        With `names`, only those products are ranked ("which one is lighter?" after a
        comparison ranks the products compared, not the whole category). `min_value` and
        `max_value` bound the spec ("laptops under 1.3 kg"), the bounds themselves
        excluded when `exclusive` ("more than 5000 mAh" is not 5000 mAh). `os` keeps the
        products running it, as `search` does: a ranking honours a list's filters, and
        so its price bounds ("the lightest laptop under $1000") and its brand ("which
        Samsung phone is the cheapest?").
        """
        candidates = (
            self.find(tenant, names)
            if names
            else self.search(
                tenant,
                category=category,
                os=os,
                min_price=min_price,
                max_price=max_price,
                brand=brand,
            )
        )
        if names and os:
            candidates = [p for p in candidates if runs(p, os)]
        if names:
            candidates = [
                p
                for p in candidates
                if (min_price is None or p.price_usd >= min_price)
                and (max_price is None or p.price_usd <= max_price)
            ]

        def within(value: float) -> bool:
            if exclusive:
                return (min_value is None or value > min_value) and (
                    max_value is None or value < max_value
                )
            return (min_value is None or value >= min_value) and (
                max_value is None or value <= max_value
            )

        rows = [
            (value, p)
            for p in candidates
            if (value := p.spec_number(spec)) is not None and within(value)
        ]
        rows.sort(key=lambda r: (r[0] if order == "asc" else -r[0], r[1].price_usd))
        return [p for _, p in rows[:limit]]

    def find(self, tenant: str, names: list[str]) -> list[Product]:
        """Products best matching each name (by shared words), in the order asked."""
        products = self.products(tenant)
        chosen: list[Product] = []
        for name in names:
            wanted = set(re.findall(r"[\w.]+", fold(name))) - {"the", "le", "la"}
            best, best_score = None, 0.0
            for product in products:
                written = re.findall(r"[\w.]+", fold(product.name))
                words = set(written)
                if any(any(c.isdigit() for c in w) and w not in words for w in wanted):
                    continue  # a model number names one product: "S25" is not the S24
                if _another_edition(written, wanted):
                    continue  # "Pixel 8" is not the Pixel 8 Pro
                score = len(wanted & words) / max(len(wanted), 1)
                if score > best_score:
                    best, best_score = product, score
            if best is not None and best_score >= 0.5 and best not in chosen:
                chosen.append(best)
        return chosen


def absent_models(catalog: Catalog, tenant: str, names: list[Any]) -> list[str]:
    """Return the model names asked that no product of the catalog is ("Pixel 8", "S25")."""
    return [
        re.sub(r"^(?:the|le|la|les)\s+", "", str(name))
        for name in names
        if any(c.isdigit() for c in str(name)) and not catalog.find(tenant, [str(name)])
    ]


def sharing_words(products: list[Product], name: str) -> list[Product]:
    """Return the products whose names hold a name's words but its numbers ("Pixel 8": Pixels)."""
    wanted = {w for w in re.findall(r"[\w.]+", fold(name)) if w.isalpha()} - {"the", "le", "la"}
    return [p for p in products if wanted and wanted <= set(re.findall(r"[\w.]+", fold(p.name)))]


def _another_edition(written: list[str], wanted: set[str]) -> bool:
    """Whether a product's name follows a model number asked with an edition word not asked.

    "Pixel 8" is the start of the "Google Pixel 8 Pro"'s name: the Pro is another
    product, which the name asked does not name.
    """
    return any(
        any(c.isdigit() for c in word) and word in wanted and after in _EDITIONS
        and after not in wanted
        for word, after in zip(written, written[1:], strict=False)
    )  # fmt: skip


_EDITIONS = frozenset(en.EDITION_WORDS)


def runs(product: Product, os: str) -> bool:
    """Whether a product runs that system: its `os` spec starts with it ("Android 14 ...")."""
    written = fold(str(product.specs.get("os", ""))).split()
    asked = fold(os).split()
    return bool(asked) and written[: len(asked)] == asked
