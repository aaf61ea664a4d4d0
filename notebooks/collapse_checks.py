"""Collapse the inputs of check cells (tagged ``remove-input``) in the student copy:
``python notebooks/collapse_checks.py build/student`` (run by ``make student``).

JupyterLab shows a collapsed cell as a thin bar a student can click open; its output (a
figure, usually) stays visible."""

import sys
from pathlib import Path

import nbformat


def collapse(folder: str) -> None:
    for path in sorted(Path(folder).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if "remove-input" in cell.metadata.get("tags", []):
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
        nbformat.write(nb, path)


if __name__ == "__main__":
    collapse(sys.argv[1])
