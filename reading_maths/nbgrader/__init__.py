"""nbgrader adapters: autograde's orchestration, the preprocessors that inject the sandbox's results
(``steps``), release, the in-kernel driver, the late-penalty plugin, nbgrader's environment, and
``gather`` (students' repositories into ``submitted/``, beside nbgrader's collect and zip_collect)."""
