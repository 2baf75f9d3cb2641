"""What people and CI read: terminal tables, JUnit/Gradescope/Markdown outputs, the class report."""
