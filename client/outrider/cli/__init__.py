"""The `outrider` command (typer + rich; install the `cli` extra)."""
