"""nbgrader adapters: autograde's orchestration, the preprocessors that inject the sandbox's results
(``steps``), release, the in-kernel driver, the late-penalty plugin and nbgrader's environment."""
