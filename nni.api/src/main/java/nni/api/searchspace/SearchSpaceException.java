package nni.api.searchspace;

import java.util.List;
import java.util.stream.Collectors;

import nni.api.config.ConfigProblem;

/** A search space that breaks NNI's rules; carries every problem, with key paths inside the space. */
public class SearchSpaceException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    public SearchSpaceException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
