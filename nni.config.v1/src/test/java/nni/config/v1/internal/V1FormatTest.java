package nni.config.v1.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import nni.api.config.ConfigConversion;
import nni.api.config.ConfigProblem;
import nni.api.config.KeyPaths;

/** The v1 format on its own: what it recognises, the v2 tree it makes, the origins and the problems it reports. */
public class V1FormatTest {

    private final V1Format format = new V1Format();

    private static Map<String, Object> yaml(String text) {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    }

    private ConfigConversion convert(String text) {
        Map<String, Object> root = yaml(text);
        assertTrue(text, format.recognises(root));
        return format.convert(root);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    private static List<String> problems(ConfigConversion conversion) {
        return conversion.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    public void aFileIsV1WhenItsTrainingServicePlatformIsTruthy() {
        assertTrue(format.recognises(yaml("trainingServicePlatform: local")));
        assertFalse(format.recognises(yaml("trainingServicePlatform: ''")));
        assertFalse(format.recognises(yaml("trainingServicePlatform: false")));
        assertFalse(format.recognises(yaml("trainingService: {platform: local}")));
    }

    @Test
    public void kubeflowIsConvertedAsNnisConverterDoes() {
        ConfigConversion conversion = convert("""
                authorName: me
                experimentName: kf
                trialConcurrency: 1
                trainingServicePlatform: kubeflow
                searchSpacePath: ss.json
                useAnnotation: false
                maxExecDuration: 2h
                maxTrialNum: 5
                tuner: {builtinTunerName: TPE, classArgs: {optimize_mode: maximize}, gpuIndices: 1}
                trial:
                  codeDir: .
                  worker: {replicas: 1, command: python3 a.py, gpuNum: 0, cpuNum: 1, memoryMB: 8192, image: img}
                kubeflowConfig:
                  operator: tf-operator
                  apiVersion: v1alpha2
                  storage: nfs
                  nfs: {server: 192.0.2.1, path: /exports}
                """);
        assertEquals(List.of(), problems(conversion));
        Map<String, Object> v2 = conversion.tree();
        Map<String, Object> service = map(v2.get("trainingService"));
        assertEquals("kubeflow", service.get("platform"));
        assertEquals("tf-operator", service.get("operator"));
        assertEquals("v1alpha2", service.get("apiVersion"));
        assertEquals(Map.of("storageType", "nfs", "server", "192.0.2.1", "path", "/exports"), service.get("storage"));
        assertEquals(Map.of("replicas", 1, "command", "python3 a.py", "gpuNumber", 0, "cpuNumber", 1, "memorySize", 8192,
                "dockerImage", "img", "codeDirectory", "."), service.get("worker"));
        assertEquals("kf", v2.get("experimentName"));
        assertEquals("2h", v2.get("maxExperimentDuration"));
        assertEquals(5, v2.get("maxTrialNumber"));
        assertEquals("ss.json", v2.get("searchSpaceFile"));
        assertEquals(1, v2.get("tunerGpuIndices"));
        assertEquals(Map.of("name", "TPE", "classArgs", Map.of("optimize_mode", "maximize")), v2.get("tuner"));
        assertFalse(v2.containsKey("authorName"));
    }

    @Test
    public void includeIntermediateResultsIsKeptInTheTunerSection() {
        Map<String, Object> v2 = convert("""
                trialConcurrency: 1
                trainingServicePlatform: local
                tuner: {builtinTunerName: TPE, includeIntermediateResults: true}
                assessor: {builtinAssessorName: Medianstop}
                trial: {command: python3 a.py, codeDir: .}
                """).tree();
        assertEquals(Boolean.TRUE, map(v2.get("tuner")).get("includeIntermediateResults"));
        assertEquals(Map.of("name", "Medianstop"), v2.get("assessor"));
        assertEquals("python3 a.py", v2.get("trialCommand"));
    }

    @Test
    public void everyMovedValueNamesTheV1KeyItCameFrom() {
        ConfigConversion conversion = convert("""
                trialConcurrency: 1
                trainingServicePlatform: remote
                searchSpacePath: ss.json
                tuner: {builtinTunerName: Random}
                trial: {command: python3 a.py, codeDir: .}
                machineList:
                  - {ip: 192.0.2.1, username: u, passwd: p, port: 99999}
                """);
        Map<String, String> origins = conversion.origins();
        assertEquals("", origins.get(""));
        assertEquals("searchSpacePath", origins.get("searchSpaceFile"));
        assertEquals("trial.command", origins.get("trialCommand"));
        assertEquals("tuner.builtinTunerName", origins.get("tuner.name"));
        assertEquals("trainingServicePlatform", origins.get("trainingService.platform"));
        assertEquals("machineList[0]", origins.get("trainingService.machineList[0]"));
        assertEquals("machineList[0].port", origins.get("trainingService.machineList[0].port"));
        assertEquals("machineList[0].ip", origins.get("trainingService.machineList[0].host"));
        // a v2 field the file leaves out belongs to the v1 key it would have come from
        assertEquals("trainingServicePlatform", origins.get("trainingService"));
        assertEquals("trial", origins.get("trainingService.trialGpuNumber"));
        assertEquals("trial", origins.get("trialGpuNumber"));
        assertEquals("trial", origins.get("trainingService.trialCommand"));
        assertEquals(Map.of("host", "192.0.2.1", "user", "u", "password", "p", "port", 99999),
                ((List<?>) map(conversion.tree().get("trainingService")).get("machineList")).get(0));
    }

    @Test
    public void aFieldTheFileLeavesOutHasTheOriginOfTheV1KeyItBelongsTo() {
        ConfigConversion conversion = convert("""
                trialConcurrency: 1
                trainingServicePlatform: remote
                tuner: {builtinTunerName: TPE}
                trial:
                  codeDir: .
                """);
        assertEquals("trial", conversion.origins().get("trialCommand"));
        assertEquals("trial", conversion.origins().get("trainingService.trialCommand"));
        assertNull(map(conversion.tree().get("trainingService")).get("machineList"));
    }

    @Test
    public void keysNoV1SchemaKnowsAreProblemsAtTheirV1Paths() {
        ConfigConversion conversion = convert("""
                trialConcurrency: 1
                trainingServicePlatform: remote
                multiPhase: true
                colour: blue
                tuner: {builtinTunerName: TPE, flavour: x}
                trial: {command: python3 a.py, codeDir: ., speed: 3}
                remoteConfig: 7
                machineList:
                  - {ip: 192.0.2.1, username: u, passwd: p, rack: 3}
                """);
        assertEquals(List.of(
                "multiPhase: multi-phase experiments are no longer supported (NNI 2.0 dropped them)",
                "tuner.flavour: unknown key \"flavour\" in a v1 experiment file",
                "remoteConfig: expected a mapping, got 7",
                "machineList[0].rack: unknown key \"rack\" in a v1 experiment file",
                "trial.speed: unknown key \"speed\" in a v1 experiment file",
                "colour: unknown key \"colour\" in a v1 experiment file (trainingServicePlatform makes it v1)"),
                problems(conversion));
    }

    @Test
    public void anUnknownPlatformIsAProblemAtTrainingServicePlatform() {
        ConfigConversion conversion = convert("""
                trialConcurrency: 1
                trainingServicePlatform: lokal
                tuner: {builtinTunerName: TPE}
                trial: {command: python3 a.py, codeDir: .}
                """);
        assertEquals(List.of("trainingServicePlatform: expected one of local, remote, pai, kubeflow, frameworkcontroller, "
                + "aml, adl, dlts, hybrid, got \"lokal\""), problems(conversion));
    }

    @Test
    public void aHybridFileBecomesATrainingServiceList() {
        ConfigConversion conversion = convert("""
                trialConcurrency: 1
                trainingServicePlatform: hybrid
                tuner: {builtinTunerName: TPE}
                trial: {command: python3 a.py, codeDir: .}
                hybridConfig:
                  trainingServicePlatforms: [local, remote]
                machineList:
                  - {ip: 192.0.2.1, username: u, passwd: p}
                """);
        assertEquals(List.of(), problems(conversion));
        List<?> services = (List<?>) conversion.tree().get("trainingService");
        assertEquals(2, services.size());
        assertEquals("local", map(services.get(0)).get("platform"));
        assertEquals("remote", map(services.get(1)).get("platform"));
        assertEquals("hybridConfig.trainingServicePlatforms[1]", conversion.origins().get("trainingService[1]"));
        assertEquals("machineList[0].ip", conversion.origins().get("trainingService[1].machineList[0].host"));
    }

    @Test
    public void theFileGivenIsNotChanged() {
        Map<String, Object> root = yaml("""
                trialConcurrency: 1
                trainingServicePlatform: frameworkcontroller
                tuner: {builtinTunerName: TPE}
                trial:
                  codeDir: .
                  taskRoles:
                    - {name: worker, taskNum: 1, command: python3 a.py, gpuNum: 0, cpuNum: 1, memoryMB: 8192, image: img,
                       frameworkAttemptCompletionPolicy: {minFailedTaskCount: 1, minSucceededTaskCount: 1}}
                frameworkcontrollerConfig:
                  serviceAccountName: null
                  storage: nfs
                  nfs: {server: 192.0.2.1, path: /exports}
                """);
        Map<String, Object> before = KeyPaths.copy(root);
        ConfigConversion conversion = format.convert(root);
        assertEquals(List.of(), problems(conversion));
        assertEquals(before, root);
        Map<String, Object> service = map(conversion.tree().get("trainingService"));
        // an explicit null (the namespace's default account) is kept, as v2 allows
        assertTrue(service.containsKey("serviceAccountName"));
        assertNull(service.get("serviceAccountName"));
        assertEquals(Map.of("minFailedTaskCount", 1, "minSucceedTaskCount", 1),
                map(((List<?>) service.get("taskRoles")).get(0)).get("frameworkAttemptCompletionPolicy"));
        assertEquals("python3 a.py", conversion.tree().get("trialCommand"));
    }
}
