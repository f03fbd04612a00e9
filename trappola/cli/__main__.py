"""``python -m trappola.cli`` is the ``trappola`` command."""

import sys

from trappola.cli.main import main

sys.exit(main())
