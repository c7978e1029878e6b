"""``python -m card_envs.scaffold NAME``: a new game from the template (see the package's docstring)."""

from card_envs.scaffold import main

raise SystemExit(main())
