"""`python -m task_defs.trials.generate [--check] [--seed N]`; the options are main's."""

import sys

from task_defs.trials.generate import main

sys.exit(main())
