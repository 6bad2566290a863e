package nni.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.ReferenceDTO;

/**
 * No component of the runtime's own bundles references, through any chain, a service it provides
 * itself: SCR would then have to activate a component while activating it. It copes (it logs
 * "Circular reference detected" as an error and binds the reference later), so nothing else shows
 * such a loop, which once existed between the experiment service and the listeners on its
 * whiteboard that act through it.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ComponentCyclesIT extends RuntimeTestSupport {

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    @Test(timeout = 60_000)
    public void noComponentReachesItselfThroughItsReferences() throws Exception {
        ServiceComponentRuntime scr = service(ServiceComponentRuntime.class, null);
        List<Bundle> ours = List.of(context.getBundles()).stream().filter(b -> b.getSymbolicName().startsWith("nni.")).toList();
        Collection<ComponentDescriptionDTO> components = scr.getComponentDescriptionDTOs(ours.toArray(Bundle[]::new));
        assertTrue("the manager's components are described: " + components.size(), components.size() > 20);

        Map<String, Set<String>> providers = new HashMap<>();
        for (ComponentDescriptionDTO component : components) {
            for (String service : component.serviceInterfaces) {
                providers.computeIfAbsent(service, s -> new TreeSet<>()).add(component.name);
            }
        }
        Map<String, Set<String>> uses = new HashMap<>();
        for (ComponentDescriptionDTO component : components) {
            Set<String> used = new TreeSet<>();
            for (ReferenceDTO reference : component.references) {
                used.addAll(providers.getOrDefault(reference.interfaceName, Set.of()));
            }
            uses.put(component.name, used);
        }
        List<String> loops = new ArrayList<>();
        for (String component : new TreeSet<>(uses.keySet())) {
            List<String> loop = loopThrough(component, uses);
            if (!loop.isEmpty()) {
                loops.add(String.join(" -> ", loop));
            }
        }
        assertEquals("components that reach themselves through their references", List.of(), loops);
    }

    /** @return a chain of references from {@code start} back to it, or empty when there is none */
    private static List<String> loopThrough(String start, Map<String, Set<String>> uses) {
        List<String> path = new ArrayList<>(List.of(start));
        return search(start, start, uses, path, new LinkedHashSet<>()) ? path : List.of();
    }

    private static boolean search(String start, String at, Map<String, Set<String>> uses, List<String> path, Set<String> seen) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                path.add(next);
                return true;
            }
            if (seen.add(next)) {
                path.add(next);
                if (search(start, next, uses, path, seen)) {
                    return true;
                }
                path.remove(path.size() - 1);
            }
        }
        return false;
    }
}
