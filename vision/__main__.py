import sys

from tabletop_base.threads import one_blas_thread

one_blas_thread()  # before numpy is imported: tabletop_base/threads.py says why

from .cli import main  # noqa: E402

sys.exit(main())
