"""Finish the students' copy (``python notebooks/collapse_checks.py build/student``, run by
``make student`` after it has executed the copies):

- collapse the inputs of check cells (tagged ``remove-input``): JupyterLab shows a collapsed
  cell as a thin bar a student can click open; its output (a figure, usually) stays visible;
- keep the still picture of each explorer, not its widget view: the copy is saved without
  widget state, so a view would open as "model not found" until the notebook is run again
  (running it brings the live sliders back).
"""

import sys
from pathlib import Path

import nbformat

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def collapse(folder: str) -> None:
    for path in sorted(Path(folder).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if "remove-input" in cell.metadata.get("tags", []):
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            for output in cell.get("outputs", []):
                output.get("data", {}).pop(WIDGET_VIEW, None)
        nbformat.write(nb, path)


if __name__ == "__main__":
    collapse(sys.argv[1])
