pytest_plugins = ["fixtures.java_oracle", "fixtures.postgres"]
