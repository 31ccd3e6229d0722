pytest_plugins = [
    "fixtures.java_oracle",
    "fixtures.postgres",
    "fixtures.rest_java",
    "fixtures.iceview_serve",
    "fixtures.trino_server",
    "fixtures.hms_server",
]
