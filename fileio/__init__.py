"""Reading and writing the user's files without crashing, hanging or losing one.

Shared by ``companion``, ``vision`` and ``hardware`` (it knows nothing of the
game): :mod:`fileio.paths` says whether a path is a regular file that may be
read, and whether an output may be written without overwriting an input;
:mod:`fileio.atomic` writes a file whole or not at all; :mod:`fileio.images`
reads and writes pictures by bytes (OpenCV's own file functions crash on file
names that are not UTF-8).
"""
