"""Alpha-Beta Arena's engine: games, search and solving (no web imports).

Importing the package chooses how its modules run, before any is loaded: compiled when the build is current,
else interpreted (``engine.native``). ``BUILD`` says which.
"""

from engine.native import EngineBuild, use_compiled_build

BUILD: EngineBuild = use_compiled_build()
