"""``python -m card_envs.records``: see :mod:`card_envs.records.cli`."""

from card_envs.records.cli import main

raise SystemExit(main())
