"""Code that runs in another process (the kernel, its fork server, the relays): imports nothing of the package."""
