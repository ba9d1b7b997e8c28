"""``python -m vaultmem``: the command line, as the ``vaultmem`` script runs it."""

from vaultmem.cli import main

if __name__ == "__main__":
    main()
