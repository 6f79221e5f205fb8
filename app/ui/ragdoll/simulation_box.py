"""The ragdoll panel's Simulation box: go, pause, step, reset and bake, shoot or drag, shot and drag
strength, gravity, ground, copies, the stepping budget, and the real-time line. A view of
``Simulation``: its widgets call the simulation's setters, and its events refresh only what changed
(the statistics refresh rewrites the one label, never an editing widget)."""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QCheckBox, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QMessageBox,
                               QProgressDialog, QSizePolicy, QSlider, QSpinBox)

from app.physics.ragdoll import TIME_STEP
from app.state.ragdoll.simulation import REALTIME_SHARE, Simulation
from app.ui.ragdoll.widgets import make_action, set_value, spin, tool_button

#: Below this share of real time the box says the run is in slow motion and why.
SLOW_MOTION = 0.95


class SimulationBox(QGroupBox):
    """``go_requested(bool)``: the user asked to start (True) or stop the ragdoll; the window knows
    the clip and time to take over from. ``bake_requested``: turn the run so far into a clip."""

    go_requested = Signal(bool)
    bake_requested = Signal()
    check_finished = Signal(dict)

    def __init__(self, simulation: Simulation, parent=None):
        super().__init__("Simulation", parent)
        self.simulation = simulation
        self.check_runner = None
        self.check_dialog = None
        self._make_actions()
        self._build()
        simulation.events.subscribe("running", self._show_running)
        simulation.events.subscribe("settings", self._show_settings)
        simulation.events.subscribe("stats", self._show_stats)
        simulation.document.events.subscribe("profile", self._show_profile)
        self._show_running()
        self._show_settings()
        self._show_profile()

    def _make_actions(self) -> None:
        simulation = self.simulation
        self.go_action = QAction("&Go Ragdoll", self)
        self.go_action.setCheckable(True)
        self.go_action.setShortcut(QKeySequence("Ctrl+G"))
        self.go_action.setToolTip("Go ragdoll from the current frame, or back to the clip (Ctrl+G)")
        self.go_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.go_action.triggered.connect(lambda _=False: self.go_requested.emit(self.go_action.isChecked()))
        self.addAction(self.go_action)
        self.pause_action = make_action(self, "&Pause Ragdoll", "P", simulation.set_paused, checkable=True)
        self.step_action = make_action(self, "&Step Ragdoll", ".", simulation.step_frame,
                                       tip="One frame (1/60 s) of simulation")
        self.reset_action = make_action(self, "Rese&t Ragdoll", "Ctrl+Shift+G", simulation.reset,
                                        tip="Back to the pose it took over from")
        self.bake_action = make_action(self, "&Bake Run to Clip", "Ctrl+B",
                                       lambda: self.bake_requested.emit(),
                                       tip="The run so far becomes a clip in the timeline (exportable)")
        self.shoot_action = make_action(self, "S&hoot Tool", "X",
                                        lambda on: on and simulation.set_tool("shoot"), checkable=True,
                                        tip="Click the ragdoll to shoot it along the view ray")
        self.drag_action = make_action(self, "&Drag Tool", "C",
                                       lambda on: on and simulation.set_tool("drag"), checkable=True,
                                       tip="Drag a part on a spring (Ctrl + drag works with either tool)")
        tools = QActionGroup(self)
        tools.addAction(self.shoot_action)
        tools.addAction(self.drag_action)
        self.gravity_action = make_action(self, "G&ravity", None, simulation.set_gravity, True)
        self.ground_action = make_action(self, "Gro&und Plane", None, simulation.set_ground, True)
        self.follow_action = make_action(self, "&Follow Clip", None, simulation.set_follow, checkable=True,
                                         tip="Go drives the joints toward the clip with motors while the "
                                         "root follows it; shots knock limbs off and they come back")
        self.release_action = make_action(self, "Release &Motors", None, lambda *_: simulation.release(),
                                          tip="Free the root and fade the motors out over the release time")
        self.check_action = make_action(self, "&Check Profile…", None, lambda *_: self.show_check(),
                                        tip="Run the profile through the standard trial (ragdoll --check)")

    def actions_in_order(self) -> list[QAction | None]:
        """The simulation's actions in menu order (None: a separator)."""
        return [self.go_action, self.pause_action, self.step_action, self.reset_action, self.bake_action,
                None, self.shoot_action, self.drag_action, self.gravity_action, self.ground_action,
                None, self.follow_action, self.release_action, self.check_action]

    def _build(self) -> None:
        simulation = self.simulation
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 4)
        buttons = QHBoxLayout()
        for action in (self.go_action, self.pause_action, self.step_action, self.reset_action):
            buttons.addWidget(tool_button(self, action))
        buttons.addStretch(1)
        grid.addLayout(buttons, 0, 0, 1, 4)
        tools = QHBoxLayout()
        for action in (self.shoot_action, self.drag_action):
            tools.addWidget(tool_button(self, action))
        tools.addStretch(1)
        grid.addLayout(tools, 1, 0, 1, 4)
        self.impulse_box = spin(self, 0.1, 9999.0, 5.0, 1, " N·s", "Shot impulse")
        self.impulse_box.valueChanged.connect(simulation.set_impulse)
        self.drag_box = spin(self, 1.0, 999999.0, 100.0, 0, " N",
                             "Drag spring strength (most force it may use)")
        self.drag_box.valueChanged.connect(simulation.set_drag_strength)
        strengths = QHBoxLayout()
        strengths.addWidget(QLabel("Shot", self))
        strengths.addWidget(self.impulse_box, stretch=1)
        strengths.addWidget(QLabel("Drag", self))
        strengths.addWidget(self.drag_box, stretch=1)
        grid.addLayout(strengths, 2, 0, 1, 4)
        self.gravity_box = QCheckBox("Gravity", self)
        self.gravity_box.toggled.connect(self.gravity_action.setChecked)
        self.ground_box = QCheckBox("Ground", self)
        self.ground_box.toggled.connect(self.ground_action.setChecked)
        self.copies_box = QSpinBox(self)
        self.copies_box.setRange(1, 200)
        self.copies_box.setPrefix("copies ")
        self.copies_box.setToolTip("How many ragdolls to simulate side by side")
        self.copies_box.setKeyboardTracking(False)
        self.copies_box.valueChanged.connect(simulation.set_copies)
        self.budget_box = spin(self, 1.0, 500.0, 1.0, 0, " ms",
                               "Most time spent stepping per frame (stepping takes what real time needs "
                               "up to this)")
        self.budget_box.setPrefix("at most ")
        self.budget_box.valueChanged.connect(lambda v: simulation.set_budget(v / 1000.0))
        settings = (self.gravity_box, self.ground_box, self.copies_box, self.budget_box)
        for column, widget in enumerate(settings):
            grid.addWidget(widget, 3, column)
        self.strength_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.strength_slider.setRange(0, 100)
        self.strength_slider.setToolTip("Motor strength while following the clip (a share of each joint's "
                                        "torque)")
        self.strength_slider.valueChanged.connect(lambda v: simulation.set_motor_strength(v / 100.0))
        self.release_box = spin(self, 0.0, 60.0, 0.25, 2, " s", "Release Motors fades them out over this")
        self.release_box.valueChanged.connect(simulation.set_release_seconds)
        self.strength_slider.setMinimumWidth(40)
        self.strength_label = QLabel(self)
        self.strength_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.strength_label.setMinimumWidth(self.strength_label.fontMetrics().horizontalAdvance("100 %"))
        self.strength_slider.valueChanged.connect(self._show_strength)
        motors = QHBoxLayout()
        motors.addWidget(tool_button(self, self.follow_action))
        motors.addWidget(self.strength_slider, stretch=1)
        motors.addWidget(self.strength_label)
        grid.addLayout(motors, 5, 0, 1, 2)
        release = QHBoxLayout()
        release.addWidget(tool_button(self, self.release_action))
        release.addWidget(self.release_box, stretch=1)
        grid.addLayout(release, 5, 2, 1, 2)
        self.stats_label = QLabel(self)
        self.stats_label.setWordWrap(True)
        # Its changing text must not resize the dock.
        self.stats_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.stats_label.setMinimumHeight(3 * self.stats_label.fontMetrics().lineSpacing())
        grid.addWidget(self.stats_label, 4, 0, 1, 4)

    # --- showing -------------------------------------------------------------------------------------

    def _show_profile(self, _why: str = "") -> None:
        self.go_action.setEnabled(self.simulation.document.profile is not None)
        self._show_settings()

    def _show_running(self) -> None:
        simulation = self.simulation
        running = simulation.running
        with QSignalBlocker(self.go_action):
            self.go_action.setChecked(running)
        self.go_action.setText("Stop Ragdoll" if running else "&Go Ragdoll")
        with QSignalBlocker(self.pause_action):
            self.pause_action.setChecked(simulation.paused)
        for action in (self.pause_action, self.step_action, self.reset_action, self.bake_action,
                       self.release_action):
            action.setEnabled(running)
        self._show_stats()
        self._show_drag_strength()

    def _show_settings(self) -> None:
        simulation = self.simulation
        for action, on in ((self.shoot_action, simulation.tool == "shoot"),
                           (self.drag_action, simulation.tool == "drag")):
            with QSignalBlocker(action):
                action.setChecked(on)
        for action, box, on in ((self.gravity_action, self.gravity_box, simulation.gravity),
                                (self.ground_action, self.ground_box, simulation.ground)):
            with QSignalBlocker(action), QSignalBlocker(box):
                action.setChecked(on)
                box.setChecked(on)
        with QSignalBlocker(self.follow_action), QSignalBlocker(self.strength_slider):
            self.follow_action.setChecked(simulation.follow)
            self.strength_slider.setValue(round(simulation.motor_strength * 100))
        self._show_strength(self.strength_slider.value())
        set_value(self.release_box, simulation.release_seconds)
        set_value(self.impulse_box, simulation.impulse)
        set_value(self.copies_box, simulation.copies)
        set_value(self.budget_box, simulation.budget * 1000.0)
        self._show_drag_strength()
        self._show_stats()

    def show_check(self) -> bool:
        """Ragdoll › Check Profile: the standard trial on a worker thread behind a progress bar, its
        report then in a dialog (``check_finished`` tells the report). False when it cannot start."""
        from app.ui.ragdoll.check_runner import CheckRunner

        if self.check_runner is not None and self.check_runner.running:
            return False
        try:
            self.simulation.profile_check()
        except ValueError as error:
            QMessageBox.warning(self, "Check profile", f"Could not check the profile: {error}")
            return False
        self.check_runner = runner = CheckRunner(self.simulation.profile_check, self)
        progress = QProgressDialog("Checking the profile: falls, shots and a pull…", "", 0, 100, self)
        progress.setWindowTitle("Check profile")
        progress.setCancelButton(None)
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        runner.progressed.connect(progress.setValue)
        runner.finished.connect(lambda report: self._check_done(progress, report))
        runner.failed.connect(lambda why: self._check_failed(progress, why))
        self.check_action.setEnabled(False)
        progress.show()
        runner.start()
        return True

    def _check_done(self, progress, report: dict) -> None:
        from app.ui.ragdoll.check_dialog import CheckDialog

        progress.close()
        self.check_action.setEnabled(True)
        self.check_dialog = CheckDialog(report, self.simulation.document, self)
        self.check_dialog.show()
        self.check_finished.emit(report)

    def _check_failed(self, progress, why: str) -> None:
        progress.close()
        self.check_action.setEnabled(True)
        QMessageBox.warning(self, "Check profile", f"Could not check the profile: {why}")

    def _show_strength(self, percent: int) -> None:
        self.strength_label.setText(f"{percent} %")

    def _show_drag_strength(self) -> None:
        strength = self.simulation.current_drag_strength()
        if strength is not None:
            set_value(self.drag_box, strength)

    def _show_stats(self) -> None:
        self.stats_label.setText(self.stats_text())

    def stats_text(self) -> str:
        """The real-time factor and budget line (plus the simulation's last message)."""
        simulation = self.simulation
        lines = []
        if simulation.running:
            ragdoll = simulation.ragdoll
            if simulation.paused:
                state = "paused"
            elif simulation.realtime is None:
                state = "measuring…"
            else:
                state = f"{simulation.realtime:.0%} of real time"
            capacity = ragdoll.realtime_factor
            cost = f"{ragdoll.step_seconds * 1e3:.2f} ms/step" if ragdoll.step_seconds else "–"
            frames = (f" · {simulation.steps_per_frame:.1f} steps/frame" if simulation.realtime is not None
                      else "")
            lines.append(f"Running · {state}{frames}")
            budget = f"at most {simulation.budget * 1e3:.0f} ms/frame"
            lines.append(f"{cost}, could run ×{capacity:.1f} real time · {budget}"
                         if math.isfinite(capacity) else budget)
            slow = simulation.realtime is not None and simulation.realtime < SLOW_MOTION
            if slow and not simulation.paused:
                lines.append("Slow motion: this machine cannot step the ragdoll in real time"
                             if capacity < 1 / REALTIME_SHARE else
                             "Slow motion: stepping is held to the per-frame limit; raise it to keep "
                             "real time")
        else:
            lines.append(f"Stopped · {1 / TIME_STEP:.0f} Hz steps · "
                         f"at most {simulation.budget * 1e3:.0f} ms/frame")
        if simulation.message:
            lines.append(simulation.message)
        return "\n".join(lines)
