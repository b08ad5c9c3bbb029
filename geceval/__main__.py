import sys

from geceval.cli import main

sys.exit(main())
