package nni.itest.cloud.emulator;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The trap AmlIT's file-transport test relies on: a task cut off from the manager
 * ({@link TaskProcess.Isolation}) that connects to the manager's address reaches the recorder, not
 * the manager, and the recorder writes it down.
 */
public class TaskProcessIsolationTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test(timeout = 60_000)
    public void aConnectionToTheManagersPortIsRecordedAndNeverReachesTheManager() throws Exception {
        try (ServerSocketChannel manager = ServerSocketChannel.open()) {
            manager.bind(new InetSocketAddress("127.0.0.1", 0));
            manager.configureBlocking(false);
            int port = ((InetSocketAddress) manager.getLocalAddress()).getPort();
            Path connections = folder.getRoot().toPath().resolve("connections");
            TaskProcess task = TaskProcess.start("python3 -c \"import socket; socket.create_connection(('127.0.0.1', " + port
                    + ")).close()\"", folder.newFolder("task").toPath(), Map.of(), new TaskProcess.Isolation(() -> port, connections));
            assertEquals(Files.readString(folder.getRoot().toPath().resolve("task").resolve("stderr")), 0,
                    (int) task.exit().get(50, TimeUnit.SECONDS));
            assertEquals("127.0.0.1 connected to the manager port " + port + "\n", Files.readString(connections));
            assertNull("the manager got no connection", manager.accept());
        }
    }
}
