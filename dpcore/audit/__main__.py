"""``python -m dpcore.audit``: the full audit profile (:mod:`dpcore.audit.profile`)."""

from dpcore.audit.profile import main

raise SystemExit(main())
