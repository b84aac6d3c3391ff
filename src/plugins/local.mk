# Slurm plugins (thin adapters over the core).  Filled in below.
