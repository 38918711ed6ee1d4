"""The machine kcliff runs on: the processes it starts and ends, what earlier runs left, the host's load."""
