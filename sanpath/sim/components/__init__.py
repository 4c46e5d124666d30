"""Components of the I/O path, one module per hop: host, HBA, array, cache, RAID, drive."""
