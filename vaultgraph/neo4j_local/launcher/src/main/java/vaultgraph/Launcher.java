package vaultgraph;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Runs Neo4j Community in this JVM with Bolt on loopback, until the process is asked to stop.
 *
 * Usage: Launcher HOME BOLT_PORT PAGECACHE_MB [SETTINGS_FILE]. Data lives under HOME and survives restarts; auth is
 * off because Bolt only listens on 127.0.0.1. SETTINGS_FILE holds further settings in neo4j.conf's format (the
 * Python side writes the ones it tunes there, vaultgraph/neo4j_local/server.py). "vaultgraph neo4j start" waits for Bolt itself, so the READY line is only a
 * convenience for a person reading the log.
 */
public final class Launcher {
    public static void main(String[] args) throws InterruptedException {
        if (args.length < 3 || args.length > 4) {
            System.err.println("usage: Launcher HOME BOLT_PORT PAGECACHE_MB [SETTINGS_FILE]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        long pageCacheMb = Long.parseLong(args[2]);

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
        if (args.length == 4) {
            builder.loadPropertiesFromFile(Path.of(args[3]));
        }
        DatabaseManagementService dbms = builder
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }, "neo4j-shutdown"));

        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        System.out.println("READY bolt://127.0.0.1:" + port + " home=" + home);
        System.out.flush();
        stopped.await();
    }
}
