"""python -m autograder: dispatch to the command modules."""

import sys

from autograder.cli import main

sys.exit(main())
