"""STUB: the `rankkit` command line (see the issue)."""


def main(argv=None) -> int:
    raise NotImplementedError("cli")
