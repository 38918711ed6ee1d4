"""One module per `kcliff` subcommand; each has register(subparsers) and returns an exit code."""
