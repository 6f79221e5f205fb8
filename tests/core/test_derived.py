"""``app.derived``: a function of a loaded object worked out once per object and key, cached on the
object (so it goes when the object goes)."""

from __future__ import annotations

import gc
import weakref

from app.derived import derived


class Owner:
    pass


def test_a_derived_value_is_worked_out_once_per_owner_and_key():
    calls = []

    @derived
    def doubled(owner: Owner, factor: int) -> list[int]:
        calls.append((owner, factor))
        return [factor * 2]

    first, second = Owner(), Owner()
    assert doubled(first, 1) is doubled(first, 1)
    assert doubled(first, 2) == [4] and doubled(second, 1) == [2]
    assert len(calls) == 3


def test_the_cache_lives_and_dies_with_its_owner():
    @derived
    def payload(owner: Owner) -> Owner:
        return Owner()

    owner = Owner()
    kept = weakref.ref(payload(owner))
    del owner
    gc.collect()
    assert kept() is None
