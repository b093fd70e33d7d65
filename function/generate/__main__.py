"""`python -m function.generate [ROOT]`: write every generated file that differs under ROOT."""

from __future__ import annotations

import sys
from pathlib import Path

from function.generate import crds, merge_table

if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    for written in crds.main(root):
        print(f"wrote {written}", file=sys.stderr)
    if merge_table.main(root):
        print(f"wrote {merge_table.PAGE}", file=sys.stderr)
