from card_envs.web import main

raise SystemExit(main())
