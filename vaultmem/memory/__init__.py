"""Memory: the pipeline's steps over a vault's files (``pipeline``) and the language rules
they decide with (``language``, pure functions of text). The pipeline imports the rules;
the rules never import the pipeline."""
