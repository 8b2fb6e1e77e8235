from skill_be.cli import main

raise SystemExit(main())
