"""`t42 batch`: a `t42` command over a large JSON Lines input on a Dask cluster.

- `jobs`: the registry, job name -> the command's own per-record function;
- `chunks`: the input read as a stream of fixed-size chunks, each with a digest;
- `store`: the output directory (settings, one part file per chunk, the join);
- `run`: the driver (cluster, futures in flight, progress, resume, summary).

Importing this package does not import Dask; `run` does.
"""
