from __future__ import annotations

import sys

from quest.cli import main

sys.exit(main())
