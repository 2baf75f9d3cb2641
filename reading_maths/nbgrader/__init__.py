"""nbgrader adapters: autograde orchestration, the preprocessors that inject sandboxed results (steps), release, the in-kernel driver, the late-penalty plugin, nbgrader's environment."""
