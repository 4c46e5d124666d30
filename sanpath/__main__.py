"""``python -m sanpath`` runs the command-line interface."""

from sanpath.cli import main

raise SystemExit(main())
