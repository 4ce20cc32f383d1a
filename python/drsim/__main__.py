"""``python3 -m drsim COMMAND ...``: the package's command line.

The commands the Python package implements (the ``drsim`` C++ command hands
them over, and has the others): ``report`` (:mod:`drsim.report`),
``uncertainty`` (:mod:`drsim.uncertainty_cli`) and ``regress``
(:mod:`drsim.regress`). They live here rather than behind ``python3 -m
drsim.report`` because the package imports those modules to export their
functions, and running an already imported module with ``-m`` makes Python
warn.
"""

from __future__ import annotations

import sys
from typing import Callable, Sequence

USAGE = """usage: python3 -m drsim COMMAND ...
  report SOURCE OUT.html [--seed N] [--until DURATION] [--title TEXT]
  uncertainty SCENARIO --ranges FILE [--samples N] [--seeds 1,2,3] [--method sobol|morris] [--json]
  regress SCENARIO --baseline FILE [--seeds 1..20] [--json]   (or --write-baseline FILE)
each COMMAND --help says more"""


def _command(name: str) -> Callable[[Sequence[str]], int] | None:
    if name == "report":
        from drsim.report import main as report_main

        return report_main
    if name == "uncertainty":
        from drsim.uncertainty_cli import main as uncertainty_main

        return uncertainty_main
    if name == "regress":
        from drsim.regress import main as regress_main

        return regress_main
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    command = _command(args[0])
    if command is None:
        print(f"python3 -m drsim: unknown command {args[0]!r} (commands: report, uncertainty, regress)",
              file=sys.stderr)
        return 2
    return command(args[1:])


if __name__ == "__main__":
    sys.exit(main())
