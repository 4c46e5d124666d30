"""Every command's help says what each of its arguments is (``sanpath COMMAND --help``)."""

from __future__ import annotations

import argparse

from sanpath.cli import _parser


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_argument_of_every_command_has_help() -> None:
    missing = [
        f"{name} {action.metavar or action.dest}"
        for name, command in commands().items()
        for action in command._actions
        if action.help is None and not isinstance(action, argparse._HelpAction)
    ]
    assert missing == []


def test_every_command_is_summarised_in_a_whole_phrase() -> None:
    parser = _parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for choice in sub._choices_actions:
        assert choice.help and not choice.help.endswith(("the", "a", "against", "of")), choice
