"""Events: declared names, order of calls, unsubscribing, misspelt names; the profile uses them."""

import pytest

from app.events import Events


def test_listeners_run_in_order_with_the_arguments():
    events = Events("pose", "model")
    calls = []
    events.subscribe("pose", lambda *args: calls.append(("first", args)))
    events.subscribe("pose", lambda *args: calls.append(("second", args)))
    events.subscribe("model", lambda: calls.append(("model", ())))
    events.emit("pose", 1, "x")
    assert calls == [("first", (1, "x")), ("second", (1, "x"))]


def test_unsubscribe_stops_the_calls_even_while_emitting():
    events = Events("pose")
    calls = []
    remove_second = None

    def first():
        calls.append("first")
        remove_second()

    events.subscribe("pose", first)
    remove_second = events.subscribe("pose", lambda: calls.append("second"))
    events.emit("pose")
    events.emit("pose")
    assert calls == ["first", "second", "first"]
    remove_second()


def test_an_undeclared_name_is_an_error():
    events = Events("pose")
    with pytest.raises(KeyError):
        events.subscribe("poes", lambda: None)
    with pytest.raises(KeyError):
        events.emit("poes")
    assert events.names == ("pose",)


def test_the_ragdoll_profile_speaks_through_events_too():
    from app.physics.profile import Part, RagdollProfile

    profile = RagdollProfile(parts=[Part("body", "root", size=(1.0, 1.0, 1.0))])
    calls = []
    stop = profile.subscribe(lambda: calls.append(profile.parts[0].mass))
    profile.set_part("body", mass=2.0)
    stop()
    profile.set_part("body", mass=3.0)
    assert calls == [2.0] and profile.events.names == ("changed",)
    assert profile.copy().events is not profile.events
