"""python -m autograder: dispatch to the command modules."""

import sys

from autograder.commands.cli import main

sys.exit(main())
