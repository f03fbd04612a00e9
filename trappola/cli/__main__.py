"""``python -m trappola.cli`` is the ``trappola`` command."""
import sys

from .main import main

sys.exit(main())
