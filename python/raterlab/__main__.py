"""``python -m raterlab``: the raterlab command."""

from . import _main

_main()
