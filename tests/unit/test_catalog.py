"""Catalogs: parsed once per tenant, parsed again when a catalog file changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from threadline.knowledge.catalog import Catalog, CatalogError, products_of, tenant_folder

PHONE = {"name": "Pixel 9", "brand": "Google", "category": "phone", "price_usd": 799}
LAPTOP = {"name": "ThinkPad X1", "brand": "Lenovo", "category": "laptop", "price_usd": 1499}


@pytest.fixture
def reads(monkeypatch) -> list[Path]:
    """The files read through `Path.read_text` while the test runs."""
    seen: list[Path] = []
    read_text = Path.read_text

    def counting(self, *args, **kwargs):
        seen.append(self)
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    return seen


def names(catalog: Catalog, tenant: str) -> list[str]:
    return [p.name for p in catalog.products(tenant)]


def test_a_second_call_reads_no_file(tmp_path, reads):
    catalog = Catalog(tmp_path)
    catalog.save("acme", "phones", {"products": [PHONE]})
    catalog.save("acme", "laptops", {"products": [LAPTOP]})
    assert names(catalog, "acme") == ["ThinkPad X1", "Pixel 9"]
    assert len(reads) == 2
    assert names(catalog, "acme") == ["ThinkPad X1", "Pixel 9"]
    assert len(reads) == 2
    assert catalog.products("nobody") == []


def test_a_write_through_save_is_seen(tmp_path, reads):
    catalog = Catalog(tmp_path)
    catalog.save("acme", "phones", {"products": [PHONE]})
    assert names(catalog, "acme") == ["Pixel 9"]
    catalog.save("acme", "phones", {"products": [PHONE, LAPTOP]})
    assert names(catalog, "acme") == ["Pixel 9", "ThinkPad X1"]


def test_a_file_changed_by_another_process_is_seen(tmp_path, reads):
    catalog = Catalog(tmp_path)
    catalog.save("acme", "phones", {"products": [PHONE]})
    assert names(catalog, "acme") == ["Pixel 9"]
    folder = tmp_path / tenant_folder("acme")
    # Written in place (same inode), as another process's editor could.
    (folder / "phones.json").write_text(json.dumps({"products": [LAPTOP]}), encoding="utf-8")
    assert names(catalog, "acme") == ["ThinkPad X1"]
    (folder / "more.json").write_text(json.dumps({"products": [PHONE]}), encoding="utf-8")
    assert names(catalog, "acme") == ["Pixel 9", "ThinkPad X1"]
    (folder / "more.json").unlink()
    assert names(catalog, "acme") == ["ThinkPad X1"]


def test_a_half_written_temporary_file_is_not_read(tmp_path):
    catalog = Catalog(tmp_path)
    catalog.save("acme", "phones", {"products": [PHONE]})
    (tmp_path / tenant_folder("acme") / ".tmp-x.json").write_text('{"prod', encoding="utf-8")
    assert names(catalog, "acme") == ["Pixel 9"]


def test_numbers_are_stored_as_read_not_as_written() -> None:
    """A warranty given as text is the number it says, shown without a decimal."""
    (product,) = products_of({"products": [{**PHONE, "warranty_years": "2"}]}, "gadgets")
    (half,) = products_of({"products": [{**PHONE, "warranty_years": 1.5}]}, "gadgets")

    assert product.warranty_years == 2 and isinstance(product.warranty_years, int)
    assert product.spec_text("warranty_years") == "2 years"
    assert half.spec_text("warranty_years") == "1.5 years"


def test_a_one_year_warranty_is_one_year() -> None:
    """ "warranty: 1 years" was shown for the HP Pavilion 15 and every 1-year warranty."""
    (one,) = products_of({"products": [{**PHONE, "warranty_years": 1}]}, "gadgets")
    assert one.spec_text("warranty_years") == "1 year"
    assert "Warranty: 1 year." in one.describe()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("release_year", 2024.5, "release_year must be a whole number"),
        ("warranty_years", -1, "warranty_years must not be negative"),
        ("warranty_years", "two", "warranty_years must be a number"),
        # Accepted before: the cheapest product to every turn, quoted as "$-50".
        ("price_usd", -50, "price_usd must not be negative"),
        ("price_usd", "-0.01", "price_usd must not be negative"),
        # Accepted before: quoted as a 309-digit price, or a float() that raised in a turn.
        ("price_usd", 1e308, "price_usd must be at most 1,000,000,000"),
        ("price_usd", 10**400, "price_usd must be at most 1,000,000,000"),
        ("price_usd", float("inf"), "price_usd must be at most"),
        ("price_usd", float("nan"), "price_usd must be a finite number"),
        ("release_year", 10**30, "release_year must be at most 9,999"),
        ("release_year", -5, "release_year must not be below 1000"),
        ("warranty_years", 1e300, "warranty_years must be at most 100"),
        ("specs", {"weight_kg": 10**400}, "specs.weight_kg must be a finite number"),
        ("specs", {"weight_kg": 1e300}, "specs.weight_kg must be a finite number"),
        ("specs", {"weight_kg": float("nan")}, "specs.weight_kg must be a finite number"),
    ],
)
def test_a_number_a_turn_would_misread_is_refused(field, value, message) -> None:
    with pytest.raises(CatalogError, match=message):
        products_of({"products": [{**PHONE, field: value}]}, "gadgets")


def test_a_catalog_file_holding_numbers_no_store_keeps_costs_its_own_products(tmp_path):
    # A file edited by hand past `save`'s checks: NaN, or an integer a turn's float() of a
    # spec raised on (a 500 on every comparison of the tenant), leaves out its products.
    catalog = Catalog(tmp_path)
    catalog.save("acme", "laptops", {"products": [LAPTOP]})
    folder = tmp_path / tenant_folder("acme")
    huge = '{"products": [{"name": "Huge", "price_usd": 5, "specs": {"w": 1%s}}]}' % ("0" * 400)
    (folder / "huge.json").write_text(huge, encoding="utf-8")
    (folder / "nan.json").write_text(
        '{"products": [{"name": "NaN", "price_usd": 5, "specs": {"w": NaN}}]}', encoding="utf-8"
    )
    assert names(catalog, "acme") == ["ThinkPad X1"]
    assert all(p.spec_number("w") is None for p in catalog.products("acme"))
