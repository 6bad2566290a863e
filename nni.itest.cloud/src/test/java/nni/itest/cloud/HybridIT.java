package nni.itest.cloud;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.After;
import org.junit.Assume;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.itest.cloud.emulator.openpai.OpenpaiEmulator;
import nni.itest.launcher.RuntimeProcess;
import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;
import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * A hybrid experiment of the runnable jar (issue 15): {@code trainingService} is a list of three
 * members, the local machine, a remote machine (a real sshd on loopback) and an OpenPAI cluster (the
 * emulator), each with its own session; the experiment runs to DONE with trials on all three, every
 * metric stored once, and each trial's member kept in the store.
 */
public class HybridIT {

    private static final String TOKEN = "pai-token-hybrid-51c0";
    private static final String STORAGE = "confignfs-data";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private SshdHarness sshd;
    private OpenpaiEmulator pai;
    private RuntimeProcess runtime;

    @Before
    public void startMachines() throws Exception {
        String unavailable = SshdHarness.unavailableReason();
        if (unavailable != null) {
            System.out.println("HybridIT: SKIPPED: " + unavailable);
        }
        Assume.assumeTrue(unavailable, unavailable == null);
        sshd = SshdHarness.start(1);
    }

    @After
    public void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (pai != null) {
            pai.close();
        }
        if (sshd != null) {
            sshd.close();
        }
    }

    @Test(timeout = 300_000)
    public void localRemoteAndOpenpaiMembersEachRunTrialsToDone() throws Exception {
        Path storage = folder.newFolder("storage").toPath();
        pai = new OpenpaiEmulator("alice", TOKEN, Map.of(STORAGE, storage), Set.of("default", "nni"), folder.newFolder("tasks").toPath());
        Path code = CloudRuns.trialCode(folder.newFolder("code").toPath());
        Path experiments = folder.newFolder("experiments").toPath();
        SshdMachine machine = sshd.machines().get(0);
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: randint, _value: [0, 100]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialGpuNumber: 0
                trialConcurrency: 3
                maxTrialNumber: 6
                tuner: {name: Random}
                trainingService:
                  - platform: local
                  - platform: remote
                    machineList:
                      - host: %s
                        port: %d
                        user: root
                        sshKeyFile: %s
                  - platform: openpai
                    host: %s
                    username: alice
                    token: %s
                    trialCpuNumber: 1
                    trialMemorySize: 1gb
                    storageConfigName: %s
                    virtualCluster: nni
                    localStorageMountPoint: %s
                    containerStorageMountPoint: /mnt/%s
                    reuseMode: false
                """.formatted(machine.host(), machine.port(), sshd.userKey(), pai.host(), TOKEN, STORAGE, storage, STORAGE));
        Path home = CloudRuns.home(folder.newFolder("home").toPath(), "nni.ts.openpai", Map.of("keeper", "python",
                "status.refresh.seconds", "1", "list.refresh.seconds", "1"));
        CloudRuns.home(home, "nni.ts.remote", Map.of("known.hosts", sshd.knownHosts().toString(),
                "remote.directory", folder.newFolder("remote").toString(), "check.interval.seconds", "1"));

        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        runtime.assertExit(0, Duration.ofSeconds(240));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(6, store.trials().size());
            assertTrue(store.trials().toString(), store.trials().stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            CloudRuns.assertEveryMetricOnce(store);
            Map<String, Integer> members = store.trialMembers();
            Set<Integer> used = new TreeSet<>();
            for (TrialRecord trial : store.trials()) {
                int member = members.getOrDefault(trial.id(), 0);
                used.add(member);
                // each member's platform really ran its trials: OpenPAI has a job for exactly its own
                boolean paiJob = pai.job("nni_exp_" + id + "_trial_" + trial.id()) != null;
                assertEquals(trial.id() + " on member " + member, member == 2, paiJob);
            }
            assertEquals("trials ran on local, remote and openpai", Set.of(0, 1, 2), used);
        }
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
        CloudRuns.assertNowhere(TOKEN, runtime.console(), experiments.resolve(id).resolve("log"));
    }
}
