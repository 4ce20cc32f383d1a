"""``python3 -m drsim report SOURCE OUT.html``: the package's command line.

Only ``report`` for now (the ``drsim`` C++ command has the others). It lives
here rather than behind ``python3 -m drsim.report`` because the package
imports :mod:`drsim.report` to export :func:`drsim.report`, and running an
already imported module with ``-m`` makes Python warn.
"""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage: python3 -m drsim report SOURCE OUT.html [--seed N] [--until DURATION] [--title TEXT]")
        return 0 if args else 2
    if args[0] != "report":
        print(f"python3 -m drsim: unknown command {args[0]!r} (commands: report)", file=sys.stderr)
        return 2
    from drsim.report import main as report_main

    return report_main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
