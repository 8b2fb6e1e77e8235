from skill_be.schema import main

raise SystemExit(main())
