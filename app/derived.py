"""Values derived from a loaded object, cached on the object itself.

A loaded model does not change (app/model.py), so whatever is worked out from it, its skeleton, a clip
or a skin holds for as long as the object lives. A class caches what it derives with
``functools.cached_property``; a function of such an object defined elsewhere (where the class may
not import it, as ``pose.rest_extent``, or above it, as the state's measures of a clip) is decorated
with ``derived``, which keeps its results in the same place, the object's ``__dict__``: they live
and die with the object, and no module holds a table of its own.
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

Result = TypeVar("Result")


def derived(function: Callable[..., Result]) -> Callable[..., Result]:
    """``function(owner, *keys)`` worked out once per ``owner`` and ``keys``, cached on ``owner``.

    ``owner`` is the first argument, an object that does not change once loaded; ``keys`` (the other
    arguments, positional) are hashable, loaded objects comparing by identity.
    """
    slot = f"_derived {function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def cached(owner, *keys):
        results = owner.__dict__.setdefault(slot, {})
        if keys not in results:
            results[keys] = function(owner, *keys)
        return results[keys]

    return cached
