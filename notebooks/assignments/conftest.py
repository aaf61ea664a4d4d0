# The assignments' notebooks are nbgrader sources, stored without outputs: `make assignments`
# builds and grades them (notebooks/assignments/build.py); nbval does not run them.
collect_ignore_glob = ["*/*.ipynb"]
