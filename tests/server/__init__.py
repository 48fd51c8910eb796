"""The server's tests, one folder per package of ``facedown/server`` (the package each test
mostly exercises; an end-to-end test of a feature goes with the feature).  The helpers every
folder shares stay here: ``harness`` (a server in the test process and its clients),
``ranked_helpers``, ``cluster_harness`` and ``cluster_players`` (processes of a cluster; not
``cluster``, which is the folder of the cluster package's tests), ``nginx``."""
